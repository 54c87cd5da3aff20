package io.k4j.api.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void semanticEqualsComparesNumbersByValueAtAnyDepth() {
        ObjectNode parsed = (ObjectNode) Json.read("{\"spec\":{\"replicas\":1,\"ratio\":1.0}}");
        ObjectNode built = Json.object();
        built.putObject("spec").put("replicas", 1L).put("ratio", 1);

        assertThat(Json.semanticEquals(parsed, built)).isTrue();
        assertThat(Json.semanticEquals(parsed, Json.read("{\"spec\":{\"replicas\":2,\"ratio\":1.0}}"))).isFalse();
    }

    @Test
    void semanticEqualsTreatsAbsentAndNullAlike() {
        assertThat(Json.semanticEquals(null, Json.read("null"))).isTrue();
        assertThat(Json.semanticEquals(MissingNode.getInstance(), null)).isTrue();
        assertThat(Json.semanticEquals(null, Json.object())).isFalse();
    }

    @Test
    void readsWithoutTheNameTableAsWithIt() {
        byte[] pod = ("{\"metadata\":{\"name\":\"p\",\"managedFields\":[{\"fieldsV1\":{\"f:status\":{\"f:podIPs\":"
                + "{\"k:{\\\"ip\\\":\\\"10.42.0.7\\\"}\":{}}}}}]},\"spec\":{\"ratio\":1.50,\"n\":7}}").getBytes(StandardCharsets.UTF_8);

        assertThat(Json.readWithoutNameTable(pod)).isEqualTo(Json.read(pod));
        assertThat(Json.readWithoutNameTable(pod).at("/spec/ratio").decimalValue()).isEqualByComparingTo("1.50");
    }
}
