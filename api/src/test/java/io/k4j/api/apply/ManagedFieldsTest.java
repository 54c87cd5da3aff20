package io.k4j.api.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.k4j.api.codec.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ManagedFieldsTest {
    private static final FieldSet REPLICAS = FieldSet.of(List.of(List.of(new PathElement.Field("spec"), new PathElement.Field("replicas"))));

    @Test
    void encodesInUpstreamOrderAndFieldOrder() {
        ManagedFields managed = new ManagedFields();
        managed.put(new Manager("kubelet", Manager.Operation.UPDATE, "v1", "status"), new ManagedFields.Entry(REPLICAS, "v1", Optional.of(Instant.parse("2026-01-01T00:00:02Z"))));
        managed.put(new Manager("zeta", Manager.Operation.UPDATE, "v1", ""), new ManagedFields.Entry(REPLICAS, "v1", Optional.of(Instant.parse("2026-01-01T00:00:01Z"))));
        managed.put(new Manager("kubectl", Manager.Operation.APPLY, "ignored", ""), new ManagedFields.Entry(REPLICAS, "v1", Optional.of(Instant.parse("2026-01-01T00:00:09Z"))));
        managed.put(new Manager("nothing", Manager.Operation.UPDATE, "v1", ""), new ManagedFields.Entry(new FieldSet(), "v1", Optional.empty()));

        ArrayNode encoded = managed.encode();

        List<String> managers = new ArrayList<>();
        encoded.forEach(entry -> managers.add(entry.path("manager").asText()));
        assertThat(managers).containsExactly("kubectl", "zeta", "kubelet");
        assertThat(Json.writeString(encoded.get(2))).isEqualTo(
                "{\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2026-01-01T00:00:02Z\","
                        + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:replicas\":{}}},\"subresource\":\"status\"}");
        assertThat(ManagedFields.decode(encoded).entries()).hasSize(3);
        assertThat(ManagedFields.decode(encoded).get(new Manager("kubectl", Manager.Operation.APPLY, "", "")).orElseThrow().fields()).isEqualTo(REPLICAS);
    }

    @Test
    void identifiesAndPrintsManagersAsUpstream() {
        assertThat(new Manager("kubectl", Manager.Operation.APPLY, "apps/v1", "").identifier()).isEqualTo("{\"manager\":\"kubectl\",\"operation\":\"Apply\"}");
        assertThat(new Manager("kubectl", Manager.Operation.APPLY, "apps/v1", "").display()).isEqualTo("\"kubectl\"");
        assertThat(new Manager("kubelet", Manager.Operation.UPDATE, "v1", "status").display()).isEqualTo("\"kubelet\" with subresource \"status\" using v1");
    }

    @Test
    void rejectsMalformedEntries() {
        assertThatThrownBy(() -> ManagedFields.decode(Json.read("{}"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ManagedFields.decode(Json.read("[{\"manager\":\"a\",\"operation\":\"Update\",\"fieldsType\":\"FieldsV2\",\"fieldsV1\":{}}]")))
                .hasMessage("unsupported FieldsType \"FieldsV2\"");
        assertThatThrownBy(() -> ManagedFields.decode(Json.read("[{\"manager\":\"a\",\"operation\":\"Patch\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{}}]")))
                .isInstanceOf(IllegalArgumentException.class);
        // the entry clients send to clear managed fields decodes to a manager that owns nothing
        assertThat(ManagedFields.decode(Json.read("[{}]")).entries().values()).singleElement().satisfies(entry -> assertThat(entry.fields().isEmpty()).isTrue());
    }
}
