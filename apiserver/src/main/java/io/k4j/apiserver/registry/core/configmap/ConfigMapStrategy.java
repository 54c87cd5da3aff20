package io.k4j.apiserver.registry.core.configmap;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The rules of config maps, as upstream's {@code ValidateConfigMap}: keys are config keys, unique across
 * {@code data} and {@code binaryData}, at most 1 MiB in total, and an immutable config map keeps its data. Thread-safe.
 */
public final class ConfigMapStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("configmaps");
    /** Upstream's limit on the data of a config map or secret. */
    public static final int MAX_SIZE = 1024 * 1024;
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.integer("Data", "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
            TableColumn.ageColumn());

    private final InstantSource clock;

    public ConfigMapStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void prepareForCreate(ObjectNode configMap) {}

    @Override
    public void prepareForUpdate(ObjectNode newConfigMap, ObjectNode oldConfigMap) {}

    @Override
    public FieldErrors validate(ObjectNode configMap) {
        FieldErrors errors = new FieldErrors();
        JsonNode binaryData = Trees.at(configMap, "binaryData");
        long totalSize = 0;
        for (Map.Entry<String, JsonNode> entry : Trees.at(configMap, "data").properties()) {
            String path = "data[" + entry.getKey() + "]";
            NameValidation.isConfigMapKey(entry.getKey()).forEach(message -> errors.add(FieldError.invalid(path, entry.getKey(), message)));
            if (binaryData.has(entry.getKey())) {
                errors.add(FieldError.invalid(path, entry.getKey(), "duplicate of key present in binaryData"));
            }
            totalSize += entry.getValue().asText().getBytes(StandardCharsets.UTF_8).length;
        }
        for (Map.Entry<String, JsonNode> entry : binaryData.properties()) {
            NameValidation.isConfigMapKey(entry.getKey()).forEach(message -> errors.add(FieldError.invalid("binaryData[" + entry.getKey() + "]", entry.getKey(), message)));
            totalSize += decodedLength(entry.getValue().asText());
        }
        // Only the values count, as upstream sums them.
        if (totalSize > MAX_SIZE) {
            errors.add(FieldError.tooLong("", "", MAX_SIZE));
        }
        return errors;
    }

    private static long decodedLength(String base64) {
        try {
            return Base64.getDecoder().decode(base64).length;
        } catch (IllegalArgumentException e) {
            return base64.length();
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newConfigMap, ObjectNode oldConfigMap) {
        FieldErrors errors = new FieldErrors();
        if (Trees.bool(oldConfigMap, "immutable")) {
            if (!Trees.bool(newConfigMap, "immutable")) {
                errors.add(FieldError.forbidden("immutable", "field is immutable when `immutable` is set"));
            }
            if (!Trees.sameValue(Trees.emptyAsAbsent(newConfigMap.get("data")), Trees.emptyAsAbsent(oldConfigMap.get("data")))) {
                errors.add(FieldError.forbidden("data", "field is immutable when `immutable` is set"));
            }
            if (!Trees.sameValue(Trees.emptyAsAbsent(newConfigMap.get("binaryData")), Trees.emptyAsAbsent(oldConfigMap.get("binaryData")))) {
                errors.add(FieldError.forbidden("binaryData", "field is immutable when `immutable` is set"));
            }
        }
        return errors.addAll(validate(newConfigMap));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode configMap) {
        return List.of(
                Trees.text(configMap, "metadata", "name"),
                (long) (Trees.size(configMap, "data") + Trees.size(configMap, "binaryData")),
                Printing.since(Trees.at(configMap, "metadata", "creationTimestamp"), clock.instant()));
    }
}
