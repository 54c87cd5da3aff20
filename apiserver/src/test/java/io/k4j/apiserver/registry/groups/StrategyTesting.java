package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;

/** What the strategy tests share: the catalogue's types, a fixed clock, JSON literals and error messages. */
public final class StrategyTesting {
    /** The tests' "now". */
    public static final Instant NOW = Instant.parse("2024-05-01T12:00:00Z");
    public static final Ages AGES = new Ages(InstantSource.fixed(NOW));
    public static final PodTemplateRules POD_TEMPLATES = new CorePodTemplateRules();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private StrategyTesting() {}

    public static ResourceType type(String group, String plural) {
        return BuiltinResources.byResource(new GroupVersionResource(group, "v1", plural)).orElseThrow();
    }

    /** Parses JSON written with single quotes for readability. */
    public static ObjectNode json(String text) {
        try {
            return (ObjectNode) MAPPER.readTree(text.replace('\'', '"'));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<String> messages(FieldErrors errors) {
        return errors.list().stream().map(FieldError::message).toList();
    }

    /** A valid pod template with the given labels (as a JSON object literal). */
    public static String podTemplate(String labels, String restartPolicy) {
        return "{'metadata': {'labels': " + labels + "}, 'spec': {'restartPolicy': '" + restartPolicy + "',"
                + " 'containers': [{'name': 'web', 'image': 'nginx:1.25'}, {'name': 'sidecar', 'image': 'busybox'}]}}";
    }
}
