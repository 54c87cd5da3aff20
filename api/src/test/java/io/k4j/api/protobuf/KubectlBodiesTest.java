package io.k4j.api.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bodies the real kubectl 1.32 sent (captured from {@code kubectl create …} and {@code kubectl auth …} against a
 * recording HTTP server on 127.0.0.1), each beside the JSON of the same object: for the create commands the
 * output of the same command with {@code --dry-run=client -o json}, which is Go's JSON encoding of the object
 * kubectl would send.
 */
class KubectlBodiesTest {
    @ParameterizedTest
    @ValueSource(strings = {"configmap", "secret", "deployment", "deployment-zero", "job", "cronjob", "role", "clusterrole",
            "clusterrole-aggregated", "rolebinding", "clusterrolebinding", "quota", "priorityclass", "priorityclass-zero", "namespace",
            "serviceaccount", "service", "service-nodeport", "pdb", "token", "can-i", "can-i-subresource", "can-i-nonresource",
            "can-i-list", "whoami", "autoscale"})
    void decodesWhatKubectlSentIntoTheJsonOfTheSameObject(String name) {
        ObjectNode decoded = KubernetesProtobuf.decode(resource(name + ".pb"));
        JsonNode expected = Json.read(resource(name + ".json"));

        assertThat(decoded).isEqualTo(expected);
        // Go writes fields in declaration order; so must we
        assertThat(decoded.toString()).isEqualTo(expected.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"configmap", "secret", "deployment", "job", "role", "rolebinding", "quota", "service", "token", "can-i"})
    void encodesAnObjectThatDecodesToTheSameJson(String name) {
        ObjectNode decoded = KubernetesProtobuf.decode(resource(name + ".pb"));

        assertThat(KubernetesProtobuf.decode(KubernetesProtobuf.encode(decoded))).isEqualTo(decoded);
    }

    private static byte[] resource(String name) {
        try (InputStream input = KubectlBodiesTest.class.getResourceAsStream("kubectl/" + name)) {
            if (input == null) {
                throw new IllegalStateException("missing test resource kubectl/" + name);
            }
            return input.readAllBytes();
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
    }
}
