package io.k4j.apiserver.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.CachedObject;
import io.k4j.apiserver.testing.TestResources;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ListBytesTest {
    @Test
    void listIsTheItemsCachedBytesInOrderInsideTheListEnvelope() throws Exception {
        List<CachedObject> items = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            items.add(configMap("c" + i, "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c" + i + "\",\"resourceVersion\":\"" + (10 + i)
                    + "\"},\"data\":{\"k\":\"é" + i + "\"}}"));
        }
        ObjectNode metadata = Json.object();
        metadata.put("resourceVersion", "12");
        metadata.put("continue", "token");

        byte[] body = listBytes(TestResources.CONFIG_MAPS, metadata, items);

        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"12\",\"continue\":\"token\"},\"items\":["
                + new String(items.get(0).json(), StandardCharsets.UTF_8) + "," + new String(items.get(1).json(), StandardCharsets.UTF_8) + ","
                + new String(items.get(2).json(), StandardCharsets.UTF_8) + "]}");
        ObjectNode parsed = (ObjectNode) Json.read(body);
        assertThat((ArrayNode) parsed.path("items")).hasSize(3);
        assertThat(parsed.path("items").path(2).path("data").path("k").asText()).isEqualTo("é2");
    }

    @Test
    void emptyListHasAnEmptyItemsArray() throws Exception {
        ObjectNode metadata = Json.object();
        metadata.put("resourceVersion", "7");

        byte[] body = listBytes(TestResources.PODS, metadata, List.of());

        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[]}");
    }

    private static byte[] listBytes(ResourceType type, ObjectNode metadata, List<CachedObject> items) throws Exception {
        ListBody body = ListBody.of(type, metadata, items);
        return HttpExchange.collect(body.length(), body);
    }

    private static CachedObject configMap(String name, String json) {
        return new CachedObject("/registry/configmaps/default/" + name, "default", name, 1, json.getBytes(StandardCharsets.UTF_8), Map.of(), Map.of());
    }
}
