package io.k4j.controllerkit.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.api.codec.Json;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RawApi against a real HTTP server on loopback, through a real fabric8 client. */
class RawApiTest {
    /** What the server saw of one request. */
    private record Seen(String method, String path, String contentType, String userAgent, String body) {}

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("User-Agent"), body));
            Map.Entry<Integer, String> answer = switch (exchange.getRequestURI().getRawPath()) {
                case "/ok" -> Map.entry(200, "{\"metadata\":{\"resourceVersion\":\"7\"}}");
                case "/created-as-text" -> Map.entry(201, "created");
                case "/conflict" -> Map.entry(409, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                        + "\"message\":\"the object has been modified\",\"reason\":\"Conflict\",\"code\":409}");
                default -> Map.entry(404, "404 page not found");
            };
            byte[] bytes = answer.getValue().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.getKey(), bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort() + "/")
                .withUserAgent("k4j-node-simulator/v1.32.0")
                .withRequestRetryBackoffLimit(0)
                .build();
        client = new KubernetesClientBuilder().withConfig(config).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    @Test
    void sendsTheBodyWithItsTypeAndTheClientsUserAgentAndReturnsTheAnswer() throws Exception {
        JsonNode answer = new RawApi(client).send("PUT", "/ok", "application/json", Json.read("{\"spec\":{\"renewTime\":\"now\"}}"));

        assertThat(answer.path("metadata").path("resourceVersion").asText()).isEqualTo("7");
        assertThat(seen).singleElement().satisfies(request -> {
            assertThat(request.method()).isEqualTo("PUT");
            assertThat(request.path()).isEqualTo("/ok");
            assertThat(request.contentType()).startsWith("application/json");
            assertThat(request.userAgent()).isEqualTo("k4j-node-simulator/v1.32.0");
            assertThat(Json.read(request.body())).isEqualTo(Json.read("{\"spec\":{\"renewTime\":\"now\"}}"));
        });
    }

    @Test
    void patchesWithTheGivenPatchType() throws Exception {
        new RawApi(client).send("PATCH", "/ok", "application/merge-patch+json", "{\"status\":{}}");

        assertThat(seen).singleElement().satisfies(request -> {
            assertThat(request.method()).isEqualTo("PATCH");
            assertThat(request.contentType()).startsWith("application/merge-patch+json");
            assertThat(request.body()).isEqualTo("{\"status\":{}}");
        });
    }

    @Test
    void getsWithoutBody() throws Exception {
        assertThat(new RawApi(client).get("/ok").path("metadata").path("resourceVersion").asText()).isEqualTo("7");
        assertThat(seen).singleElement().satisfies(request -> {
            assertThat(request.method()).isEqualTo("GET");
            assertThat(request.body()).isEmpty();
        });
    }

    @Test
    void anErrorAnswerThrowsWithItsCodeAndStatusMessage() {
        RawApi api = new RawApi(client);

        assertThatThrownBy(() -> api.send("PUT", "/conflict", "application/json", "{}"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409))
                .hasMessageContaining("the object has been modified");
        assertThatThrownBy(() -> api.get("/missing"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404))
                .hasMessageContaining("404 page not found");
    }

    @Test
    void aWriteReadsNothingOfASuccessfulAnswerButFailsOnAnErrorAnswer() throws Exception {
        RawApi api = new RawApi(client);

        api.write("POST", "/created-as-text", "application/json", "{\"kind\":\"Event\"}");

        assertThat(seen).singleElement().satisfies(request -> assertThat(request.body()).isEqualTo("{\"kind\":\"Event\"}"));
        assertThatThrownBy(() -> api.write("POST", "/conflict", "application/json", "{}"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    }

    @Test
    void aWriteForTheResourceVersionReturnsItAndFailsWhenTheAnswerHasNone() throws Exception {
        RawApi api = new RawApi(client);

        assertThat(api.writeForResourceVersion("PATCH", "/ok", RawApi.MERGE_PATCH, "{\"status\":{}}")).isEqualTo("7");
        assertThatThrownBy(() -> api.writeForResourceVersion("POST", "/created-as-text", "application/json", "{}"))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("without metadata.resourceVersion");
        assertThatThrownBy(() -> api.writeForResourceVersion("PUT", "/conflict", "application/json", "{}"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    }

    @Test
    void theResourceVersionIsReadFromTheTopLevelMetadataOnly() {
        assertThat(RawApi.resourceVersion(bytes("{\"kind\":\"Pod\",\"spec\":{\"metadata\":{\"resourceVersion\":\"1\"},\"x\":[1,{\"a\":2}]},"
                + "\"metadata\":{\"name\":\"p\",\"labels\":{\"resourceVersion\":\"2\"},\"resourceVersion\":\"3\",\"managedFields\":[{}]}}")))
                .contains("3");
        assertThat(RawApi.resourceVersion(bytes("{\"metadata\":{\"name\":\"p\"},\"resourceVersion\":\"4\"}"))).isEmpty();
        assertThat(RawApi.resourceVersion(bytes("{\"metadata\":{\"resourceVersion\":5}}"))).isEmpty();
        assertThat(RawApi.resourceVersion(bytes("[]"))).isEmpty();
        assertThat(RawApi.resourceVersion(bytes("{\"metadata\":"))).isEmpty();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void noAnswerThrowsWithCodeZero() {
        RawApi api = new RawApi(client);
        server.stop(0);

        assertThatThrownBy(() -> api.get("/ok"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isZero());
    }
}
