package io.k4j.kubelet.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.LifecycleHandlerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.kubelet.prober.FakeContainerCommandRunner;
import io.k4j.kubelet.prober.FakeContainerCommandRunner.Answer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KubeletHookRunnerTest {
    private final FakeContainerCommandRunner runner = new FakeContainerCommandRunner();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final KubeletHookRunner hooks = new KubeletHookRunner(runner, events);
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private HttpServer http;

    @BeforeEach
    void startHttpServer() throws Exception {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", exchange -> {
            requests.add(exchange.getRequestURI() + " " + exchange.getRequestHeaders().getFirst("User-Agent"));
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        http.start();
    }

    @AfterEach
    void stopHttpServer() {
        http.stop(0);
    }

    private static Pod pod(Container container) {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName("web-1").withUid("uid-1").endMetadata()
                .withNewSpec().withContainers(container).endSpec().build();
    }

    private static Container withPostStart(LifecycleHandler handler) {
        return new ContainerBuilder().withName("c1").withNewLifecycle().withPostStart(handler).endLifecycle().build();
    }

    private static Container withPreStop(LifecycleHandler handler) {
        return new ContainerBuilder().withName("c1").withNewLifecycle().withPreStop(handler).endLifecycle().build();
    }

    @Test
    void containersWithoutHooksNeedNothing() {
        Container container = new ContainerBuilder().withName("c1").build();

        assertThat(hooks.runPostStart(pod(container), container, "c-1", List.of())).isEmpty();
        assertThat(hooks.runPreStop(pod(container), container, "c-1", List.of(), Duration.ofSeconds(30))).isZero();
        assertThat(runner.calls()).isEmpty();
    }

    @Test
    void aSuccessfulExecPostStartHookRunsInTheContainerWithoutATimeout() {
        Container container = withPostStart(new LifecycleHandlerBuilder().withNewExec().withCommand("sh", "-c", "touch /ready").endExec()
                .build());

        assertThat(hooks.runPostStart(pod(container), container, "c-1", List.of())).isEmpty();
        assertThat(runner.calls()).singleElement().satisfies(call -> {
            assertThat(call.containerId()).isEqualTo("c-1");
            assertThat(call.command()).containsExactly("sh", "-c", "touch /ready");
            assertThat(call.timeout()).isZero();
        });
        assertThat(events.events()).isEmpty();
    }

    @Test
    void aFailedExecPostStartHookGivesUpstreamsMessageAndEvent() {
        runner.alwaysAnswer(new Answer.Exit(1, "out\n", "bad"));
        Container container = withPostStart(new LifecycleHandlerBuilder().withNewExec().withCommand("sh", "-c", "exit 1").endExec().build());

        Optional<String> failure = hooks.runPostStart(pod(container), container, "c-1", List.of());

        assertThat(failure).contains("Exec lifecycle hook ([sh -c exit 1]) for Container \"c1\" in Pod \"web-1_ns(uid-1)\" failed - error: "
                + "command 'sh -c exit 1' exited with 1: bad, message: \"out\\nbad\"");
        assertThat(events.events()).containsExactly("Warning FailedPostStartHook PostStartHook failed");
    }

    @Test
    void httpHooksSucceedOnAnyResponseAndFailWithoutOne() throws Exception {
        int port = http.getAddress().getPort();
        Container container = withPostStart(new LifecycleHandlerBuilder().withNewHttpGet().withPath("/started").withPort(new IntOrString(port))
                .endHttpGet().build());

        assertThat(hooks.runPostStart(pod(container), container, "c-1", List.of("127.0.0.1"))).isEmpty();
        assertThat(requests).containsExactly("/started kube-lifecycle/1.32");

        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Container refused = withPostStart(new LifecycleHandlerBuilder().withNewHttpGet().withPath("/started").withPort(new IntOrString(closed))
                .endHttpGet().build());
        assertThat(hooks.runPostStart(pod(refused), refused, "c-1", List.of("127.0.0.1")))
                .contains("HTTP lifecycle hook (/started) for Container \"c1\" in Pod \"web-1_ns(uid-1)\" failed - error: Get "
                        + "\"http://127.0.0.1:" + closed + "/started\": dial tcp 127.0.0.1:" + closed + ": connect: connection refused");
    }

    @Test
    void anHttpsHookAnsweredInPlainHttpIsRetriedOverHttp() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 10, java.net.InetAddress.getByName("127.0.0.1"))) {
            Thread.ofVirtual().start(() -> servePlainHttp(server));
            int port = server.getLocalPort();
            Container container = withPostStart(new LifecycleHandlerBuilder().withNewHttpGet().withScheme("HTTPS").withPath("/started")
                    .withPort(new IntOrString(port)).endHttpGet().build());

            assertThat(hooks.runPostStart(pod(container), container, "c-1", List.of("127.0.0.1"))).isEmpty();
            assertThat(requests).containsExactly("GET /started HTTP/1.1");
            assertThat(events.events()).containsExactly("Warning LifecycleHTTPFallback request to HTTPS lifecycle hook 127.0.0.1:" + port
                    + " got HTTP response, retry with HTTP succeeded");
        }
    }

    /** A plain HTTP server that answers a TLS handshake with 400, as Go's HTTP servers do. */
    private void servePlainHttp(ServerSocket server) {
        while (!server.isClosed()) {
            try (java.net.Socket connection = server.accept()) {
                java.io.InputStream input = connection.getInputStream();
                int first = input.read();
                java.io.OutputStream output = connection.getOutputStream();
                if (first == 0x16) {
                    output.write("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                } else {
                    java.io.BufferedReader reader = new java.io.BufferedReader(new java.io.InputStreamReader(input,
                            java.nio.charset.StandardCharsets.US_ASCII));
                    requests.add((char) first + reader.readLine());
                    output.write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                }
                output.flush();
            } catch (java.io.IOException e) {
                return;
            }
        }
    }

    @Test
    void aPreStopHookRunsWithinTheGracePeriodAndAFailureIsAnEvent() {
        runner.alwaysAnswer(new Answer.Exit(2, "", ""));
        Container container = withPreStop(new LifecycleHandlerBuilder().withNewExec().withCommand("nginx", "-s", "quit").endExec().build());

        Duration elapsed = hooks.runPreStop(pod(container), container, "c-1", List.of(), Duration.ofSeconds(30));

        assertThat(elapsed).isLessThan(Duration.ofSeconds(30));
        assertThat(runner.calls()).singleElement().satisfies(call -> assertThat(call.timeout()).isEqualTo(Duration.ofSeconds(30)));
        assertThat(events.events()).containsExactly("Warning FailedPreStopHook PreStopHook failed");
    }

    @Test
    void aPreStopHookLongerThanTheGracePeriodIsCutOff() {
        Container container = withPreStop(new LifecycleHandlerBuilder().withNewSleep().withSeconds(30L).endSleep().build());

        Duration elapsed = hooks.runPreStop(pod(container), container, "c-1", List.of(), Duration.ofMillis(300));

        assertThat(elapsed).isEqualTo(Duration.ofMillis(300));
    }
}
