package io.k4j.kubelet.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.k4j.controllerkit.testing.MutableClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kubelet's delegated authentication and authorization against an HTTP endpoint that answers TokenReviews and
 * SubjectAccessReviews as the apiserver does, through the real fabric8 client.
 */
class ApiServerKubeletAuthTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpServer apiServer;
    private final List<JsonNode> reviews = new CopyOnWriteArrayList<>();
    private KubernetesClient client;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-22T12:00:00Z"));
    private ApiServerKubeletAuth auth;

    @BeforeEach
    void start() throws IOException {
        apiServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        apiServer.createContext("/apis/", exchange -> {
            JsonNode review = JSON.readTree(exchange.getRequestBody());
            reviews.add(review);
            ObjectNode answer = ((ObjectNode) review).deepCopy();
            if (review.path("kind").asText().equals("TokenReview")) {
                ObjectNode status = answer.putObject("status");
                if (review.path("spec").path("token").asText().equals("good")) {
                    status.put("authenticated", true);
                    ObjectNode user = status.putObject("user");
                    user.put("username", "system:serviceaccount:default:reader");
                    user.put("uid", "uid-1");
                    user.putArray("groups").add("system:serviceaccounts");
                } else {
                    status.put("authenticated", false);
                }
            } else {
                boolean allowed = review.path("spec").path("user").asText().equals("system:serviceaccount:default:reader");
                answer.putObject("status").put("allowed", allowed);
            }
            byte[] body = JSON.writeValueAsBytes(answer);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(201, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        apiServer.start();
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("http://127.0.0.1:" + apiServer.getAddress().getPort()).build();
        client = new KubernetesClientBuilder().withConfig(config).build();
        auth = new ApiServerKubeletAuth(client, clock);
    }

    @AfterEach
    void stop() {
        client.close();
        apiServer.stop(0);
    }

    @Test
    void asksTheApiServerAboutTokensAndRemembersTheAnswer() {
        Optional<KubeletUser> user = auth.authenticate(List.of(), Optional.of("good"));
        assertThat(user).hasValueSatisfying(found -> {
            assertThat(found.name()).isEqualTo("system:serviceaccount:default:reader");
            assertThat(found.uid()).isEqualTo("uid-1");
            assertThat(found.groups()).containsExactly("system:serviceaccounts", "system:authenticated");
        });
        assertThat(auth.authenticate(List.of(), Optional.of("good"))).isEqualTo(user);
        assertThat(reviews).hasSize(1);

        assertThat(auth.authenticate(List.of(), Optional.of("bad"))).isEmpty();
        assertThat(auth.authenticate(List.of(), Optional.empty())).isEmpty();
        assertThat(reviews).hasSize(2);

        clock.advance(ApiServerKubeletAuth.TOKEN_TTL.plusSeconds(1));
        auth.authenticate(List.of(), Optional.of("good"));
        assertThat(reviews).hasSize(3);
    }

    @Test
    void asksForNodeSubresourcesAndCachesDecisions() {
        KubeletUser reader = new KubeletUser("system:serviceaccount:default:reader", "uid-1", List.of("system:authenticated"), Map.of());
        KubeletUser other = new KubeletUser("other", "", List.of("system:authenticated"), Map.of());

        assertThat(auth.authorize(reader, "get", "node-1", "proxy")).isTrue();
        JsonNode spec = reviews.get(0).path("spec");
        assertThat(reviews.get(0).path("kind").asText()).isEqualTo("SubjectAccessReview");
        assertThat(spec.path("user").asText()).isEqualTo("system:serviceaccount:default:reader");
        assertThat(spec.path("uid").asText()).isEqualTo("uid-1");
        assertThat(spec.path("resourceAttributes").path("verb").asText()).isEqualTo("get");
        assertThat(spec.path("resourceAttributes").path("resource").asText()).isEqualTo("nodes");
        assertThat(spec.path("resourceAttributes").path("subresource").asText()).isEqualTo("proxy");
        assertThat(spec.path("resourceAttributes").path("name").asText()).isEqualTo("node-1");

        assertThat(auth.authorize(other, "create", "node-1", "proxy")).isFalse();
        assertThat(auth.authorize(reader, "get", "node-1", "proxy")).isTrue();
        assertThat(auth.authorize(other, "create", "node-1", "proxy")).isFalse();
        assertThat(reviews).hasSize(2);

        clock.advance(ApiServerKubeletAuth.DENIED_TTL.plus(Duration.ofSeconds(1)));
        auth.authorize(other, "create", "node-1", "proxy");
        auth.authorize(reader, "get", "node-1", "proxy");
        assertThat(reviews).hasSize(3);
    }
}
