package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StoredJsonTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\",\"namespace\":\"n\",\"labels\":{\"x\":\"y\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"n\":null,\"d\":0.10,\"big\":123456789012345678901234567890}}",
            "{\"kind\":\"ConfigMap\",\"metadata\":{}}",
            "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"7\",\"uid\":\"u\"},\"data\":{\"metadata\":{\"k\":\"v\"}}}",
            "{\"spec\":{\"template\":{\"metadata\":{\"name\":\"inner\"}}},\"metadata\":{\"name\":\"outer\"}}",
            "{\"metadata\":{\"annotations\":{\"q\":\"\\\"metadata\\\":{\\\"x\\\":1}\"}}}",
            "{\"metadata\":{\"name\":\"\u00fc\",\"labels\":{\"a\":\"tab\\there \\u2028\"}},\"spec\":{\"on\":true,\"off\":false,\"list\":[1,2.5,-3,1e400,\"x\",null,{\"k\":[]}]}}"
    })
    void storedAndServedBytesEqualEncodingTheTree(String json) {
        ObjectNode object = (ObjectNode) Json.read(json);
        ObjectNode withoutVersion = object.deepCopy();
        ObjectMetadata.of(withoutVersion).remove("resourceVersion");

        StoredJson encoded = StoredJson.encode(object);

        assertThat(new String(encoded.stored(), StandardCharsets.UTF_8)).isEqualTo(Json.writeString(withoutVersion));
        ObjectNode served = withoutVersion.deepCopy();
        ObjectMetadata.of(served).put("resourceVersion", "42");
        assertThat(new String(encoded.served(42), StandardCharsets.UTF_8)).isEqualTo(Json.writeString(served));
        assertThat(object).as("the encoded tree is left alone").isEqualTo(Json.read(json));
    }

    @Test
    void servedBytesOfAnObjectWithoutMetadataCarryTheVersionInNewMetadata() {
        StoredJson encoded = StoredJson.encode((ObjectNode) Json.read("{\"kind\":\"X\"}"));

        assertThat(new String(encoded.stored(), StandardCharsets.UTF_8)).isEqualTo("{\"kind\":\"X\"}");
        assertThat(new String(encoded.served(3), StandardCharsets.UTF_8)).isEqualTo("{\"kind\":\"X\",\"metadata\":{\"resourceVersion\":\"3\"}}");
    }
}
