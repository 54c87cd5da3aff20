package io.k4j.apiserver.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.CachedObject;
import io.k4j.apiserver.registry.generic.GenericStrategy;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.testing.TestResources;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
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

    @Test
    void aTableWrittenRowByRowIsTheTableOfAllItsRows() throws Exception {
        ResourceStrategy strategy = new GenericStrategy(TestResources.CONFIG_MAPS, InstantSource.fixed(Instant.parse("2026-01-02T03:04:05Z")));
        List<ObjectNode> objects = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            objects.add((ObjectNode) Json.read("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c" + i
                    + "\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"resourceVersion\":\"" + (10 + i) + "\"},\"data\":{\"k\":\"v\"}}"));
        }
        ObjectNode metadata = Json.object();
        metadata.put("resourceVersion", "12");

        List<byte[]> rows = new ArrayList<>();
        for (ObjectNode object : objects) {
            rows.add(Json.write(TableConverter.row(strategy, object, TableConverter.IncludeObject.METADATA, "v1")));
        }
        ListBody body = new ListBody(TableConverter.envelope(strategy, "v1", metadata), "rows", rows);

        byte[] written = HttpExchange.collect(body.length(), body);
        assertThat(written).hasSize(body.length());
        assertThat(new String(written, StandardCharsets.UTF_8))
                .isEqualTo(Json.writeString(TableConverter.table(strategy, objects, TableConverter.IncludeObject.METADATA, "v1", metadata)));
        assertThat(Json.read(written).path("rows").path(2).path("object").path("metadata").path("name").asText()).isEqualTo("c2");
    }

    private static byte[] listBytes(ResourceType type, ObjectNode metadata, List<CachedObject> items) throws Exception {
        ListBody body = ListBody.of(type, metadata, items);
        return HttpExchange.collect(body.length(), body);
    }

    private static CachedObject configMap(String name, String json) {
        return new CachedObject("/registry/configmaps/default/" + name, "default", name, 1, json.getBytes(StandardCharsets.UTF_8), Map.of(), Map.of());
    }
}
