package io.k4j.kubelet.prober;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.k4j.kubelet.prober.health.v1.HealthCheckRequest;
import io.k4j.kubelet.prober.health.v1.HealthCheckResponse;
import io.k4j.kubelet.prober.health.v1.HealthGrpc;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ProberTest {
    private static final String LOOPBACK = "127.0.0.1";

    private final Prober prober = new Prober(new FakeContainerCommandRunner(), new HttpGetter(), new GrpcHealthChecker());
    private final Map<String, String> receivedHeaders = new ConcurrentHashMap<>();
    private HttpServer http;
    private int httpPort;

    @BeforeEach
    void startHttpServer() throws Exception {
        http = HttpServer.create(new InetSocketAddress(LOOPBACK, 0), 0);
        http.createContext("/healthz", exchange -> {
            exchange.getRequestHeaders().forEach((name, values) -> receivedHeaders.put(name.toLowerCase(), String.join(",", values)));
            receivedHeaders.put(":path", exchange.getRequestURI().toString());
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        http.createContext("/broken", exchange -> {
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        http.createContext("/moved-here", exchange -> {
            exchange.getResponseHeaders().add("Location", "/healthz");
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        http.createContext("/moved-away", exchange -> {
            exchange.getResponseHeaders().add("Location", "http://localhost:" + httpPort + "/healthz");
            exchange.sendResponseHeaders(301, 5);
            exchange.getResponseBody().write("gone!".getBytes(StandardCharsets.UTF_8));
            exchange.close();
        });
        http.start();
        httpPort = http.getAddress().getPort();
    }

    @AfterEach
    void stopHttpServer() {
        http.stop(0);
    }

    private static RunningContainer running() {
        return new RunningContainer("c-1", true, Instant.EPOCH, List.of(LOOPBACK));
    }

    private Container container() {
        return new ContainerBuilder().withName("c1").addNewPort().withName("http").withContainerPort(httpPort).endPort().build();
    }

    private ProbeOutcome httpProbe(String path, IntOrString port) throws Exception {
        Probe probe = new ProbeBuilder().withNewHttpGet().withPath(path).withPort(port)
                .addNewHttpHeader().withName("x-custom").withValue("yes").endHttpHeader().endHttpGet().withTimeoutSeconds(2).build();
        return prober.probe(probe, container(), running());
    }

    @Test
    void httpProbesSucceedOn2xxWithUpstreamsHeadersAndNamedPorts() throws Exception {
        ProbeOutcome outcome = httpProbe("/healthz?verbose=1", new IntOrString("http"));

        assertThat(outcome).isEqualTo(ProbeOutcome.success("ok"));
        assertThat(receivedHeaders).containsEntry("user-agent", "kube-probe/1.32").containsEntry("accept", "*/*")
                .containsEntry("x-custom", "yes").containsEntry("host", LOOPBACK + ":" + httpPort).containsEntry(":path", "/healthz?verbose=1");
    }

    @Test
    void httpProbesFailOnErrorStatusesWithoutTheBody() throws Exception {
        assertThat(httpProbe("/broken", new IntOrString(httpPort))).isEqualTo(ProbeOutcome.failure("HTTP probe failed with statuscode: 503"));
    }

    @Test
    void redirectsAreFollowedOnlyToTheSameHost() throws Exception {
        assertThat(httpProbe("/moved-here", new IntOrString(httpPort))).isEqualTo(ProbeOutcome.success("ok"));
        assertThat(httpProbe("/moved-away", new IntOrString(httpPort)))
                .isEqualTo(ProbeOutcome.warning("Probe terminated redirects, Response body: gone!"));
    }

    @Test
    void aClosedPortIsAFailureWithGosMessage() throws Exception {
        int closed = closedPort();

        assertThat(httpProbe("/healthz", new IntOrString(closed))).isEqualTo(ProbeOutcome.failure(
                "Get \"http://127.0.0.1:" + closed + "/healthz\": dial tcp 127.0.0.1:" + closed + ": connect: connection refused"));
    }

    @Test
    void anUnknownNamedPortIsAnError() {
        assertThatThrownBy(() -> httpProbe("/healthz", new IntOrString("metrics")))
                .isInstanceOf(ProbeException.class).hasMessageContaining("\"metrics\"");
    }

    @Test
    void tcpProbesConnect() throws Exception {
        Probe open = new ProbeBuilder().withNewTcpSocket().withPort(new IntOrString(httpPort)).endTcpSocket().build();
        int closed = closedPort();
        Probe refused = new ProbeBuilder().withNewTcpSocket().withPort(new IntOrString(closed)).endTcpSocket().build();

        assertThat(prober.probe(open, container(), running()).result()).isEqualTo(ProbeOutcome.Result.SUCCESS);
        assertThat(prober.probe(refused, container(), running()))
                .isEqualTo(ProbeOutcome.failure("dial tcp 127.0.0.1:" + closed + ": connect: connection refused"));
    }

    @Test
    void grpcProbesCallTheHealthService() throws Exception {
        Map<String, HealthCheckResponse.ServingStatus> statuses = Map.of("", HealthCheckResponse.ServingStatus.SERVING,
                "db", HealthCheckResponse.ServingStatus.NOT_SERVING);
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(LOOPBACK, 0))
                .addService(new HealthGrpc.HealthImplBase() {
                    @Override
                    public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> responses) {
                        responses.onNext(HealthCheckResponse.newBuilder().setStatus(statuses.get(request.getService())).build());
                        responses.onCompleted();
                    }
                })
                .build()
                .start();
        try {
            Probe healthy = new ProbeBuilder().withNewGrpc().withPort(server.getPort()).endGrpc().withTimeoutSeconds(5).build();
            Probe unhealthy = new ProbeBuilder().withNewGrpc().withPort(server.getPort()).withService("db").endGrpc().withTimeoutSeconds(5)
                    .build();

            assertThat(prober.probe(healthy, container(), running())).isEqualTo(ProbeOutcome.success("service is healthy"));
            assertThat(prober.probe(unhealthy, container(), running()))
                    .isEqualTo(ProbeOutcome.failure("service unhealthy (responded with \"NOT_SERVING\")"));
        } finally {
            server.shutdownNow();
        }
    }

    @Test
    void grpcProbesOfAServerWithoutTheHealthServiceFail() throws Exception {
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(LOOPBACK, 0)).build().start();
        try {
            Probe probe = new ProbeBuilder().withNewGrpc().withPort(server.getPort()).endGrpc().withTimeoutSeconds(5).build();

            assertThat(prober.probe(probe, container(), running()).output())
                    .startsWith("error: this server does not implement the grpc health protocol (grpc.health.v1.Health)");
        } finally {
            server.shutdownNow();
        }
    }

    @Test
    void grpcProbesOfAClosedPortTimeOut() throws Exception {
        int closed = closedPort();
        Probe probe = new ProbeBuilder().withNewGrpc().withPort(closed).endGrpc().withTimeoutSeconds(1).build();

        assertThat(prober.probe(probe, container(), running()))
                .isEqualTo(ProbeOutcome.failure("timeout: failed to connect service \"127.0.0.1:" + closed
                        + "\" within 1s: context deadline exceeded"));
    }

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        }
    }
}
