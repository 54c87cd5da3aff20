package io.k4j.api.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.k4j.api.resource.GroupVersionKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnknownFieldsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final GroupVersionKind POD = new GroupVersionKind("", "v1", "Pod");
    private static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");

    private final UnknownFields unknownFields = UnknownFields.builtin();

    @Test
    void acceptsAWellFormedPod() throws Exception {
        JsonNode pod = MAPPER.readTree("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"},"creationTimestamp":null,
                 "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"u1","controller":true}],
                 "managedFields":[{"manager":"kubectl","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:anything":{}}}}]},
                 "spec":{"containers":[{"name":"nginx","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],
                   "resources":{"limits":{"cpu":"500m","memory":1024}},
                   "livenessProbe":{"httpGet":{"path":"/","port":"http"}}}],
                   "volumes":[{"name":"data","emptyDir":{}}]},
                 "status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}
                """);
        assertThat(unknownFields.find(POD, pod)).isEmpty();
    }

    @Test
    void reportsUnknownFieldsWithUpstreamPathsInDocumentOrder() throws Exception {
        JsonNode pod = MAPPER.readTree("""
                {"apiVersion":"v1","kind":"Pod","foo":1,"metadata":{"name":"web","bogus":"x"},
                 "spec":{"containers":[{"name":"a","image":"a"},{"name":"b","image":"b","imagePullPolicyy":"Always",
                   "ports":[{"containerPort":80,"hostPortt":1}]}]}}
                """);
        List<String> unknown = unknownFields.find(POD, pod);
        assertThat(unknown).containsExactly("foo", "metadata.bogus", "spec.containers[1].imagePullPolicyy", "spec.containers[1].ports[0].hostPortt");
        assertThat(UnknownFields.message(unknown.get(2))).isEqualTo("unknown field \"spec.containers[1].imagePullPolicyy\"");
        assertThat(UnknownFields.strictDecodingMessage(List.of("foo", "metadata.bogus")))
                .isEqualTo("strict decoding error: unknown field \"foo\", unknown field \"metadata.bogus\"");
    }

    @Test
    void descendsIntoTemplatesAndIgnoresEmbeddedObjects() throws Exception {
        JsonNode deployment = MAPPER.readTree("""
                {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
                 "spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
                  "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","env":[{"name":"X","value":"1","valueFrm":{}}]}]}}}}
                """);
        assertThat(unknownFields.find(DEPLOYMENT, deployment)).containsExactly("spec.template.spec.containers[0].env[0].valueFrm");
        JsonNode revision = MAPPER.readTree("""
                {"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"revision":1,"data":{"whatever":{"goes":1}}}
                """);
        assertThat(unknownFields.find(new GroupVersionKind("apps", "v1", "ControllerRevision"), revision)).isEmpty();
    }

    @Test
    void unknownKindsHaveNoUnknownFields() throws Exception {
        assertThat(unknownFields.find(new GroupVersionKind("example.com", "v1", "Widget"), MAPPER.readTree("{\"x\":1}"))).isEmpty();
    }
}
