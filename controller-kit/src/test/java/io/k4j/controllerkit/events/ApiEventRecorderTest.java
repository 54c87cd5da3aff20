package io.k4j.controllerkit.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The recorder against a hand-written apiserver stand-in on loopback that records each event request and can hold
 * creates until several are in flight at once.
 */
class ApiEventRecorderTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern NAME = Pattern.compile("\"involvedObject\":\\{[^}]*\"name\":\"([^\"]+)\"");

    private HttpServer server;
    private KubernetesClient client;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostInFlight = new AtomicInteger();
    /** Creates answered 403, as an apiserver refuses a create in a terminating namespace or without permission. */
    private final AtomicInteger createsRefused = new AtomicInteger();
    /** Creates wait on this (up to a second) before they are answered. */
    private volatile CountDownLatch createsHeld = new CountDownLatch(0);

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::answer);
        server.start();
        client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort()).withRequestRetryBackoffLimit(0).build())
                .withHttpClientFactory(new JdkHttpClientFactory())
                .build();
    }

    @AfterEach
    void stopServer() {
        client.close();
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        int now = inFlight.incrementAndGet();
        mostInFlight.accumulateAndGet(now, Math::max);
        try {
            boolean create = exchange.getRequestMethod().equals("POST");
            if (create) {
                CountDownLatch held = createsHeld;
                held.countDown();
                held.await(1, TimeUnit.SECONDS);
            }
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " " + body);
            if (create && createsRefused.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
                byte[] refusal = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\",\"code\":403}"
                        .getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(403, refusal.length);
                exchange.getResponseBody().write(refusal);
                return;
            }
            byte[] answer = (create ? body : "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"patched\",\"namespace\":\"default\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(create ? 201 : 200, answer.length);
            exchange.getResponseBody().write(answer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
            exchange.close();
        }
    }

    @Test
    void writesOneEventAtATimeInTheOrderTheyWereRecordedByDefault() {
        try (ApiEventRecorder recorder = new ApiEventRecorder(client, "replicaset-controller", "", InstantSource.system())) {
            createsHeld = new CountDownLatch(2);
            for (int i = 0; i < 6; i++) {
                recorder.event(pod("p" + i), "Normal", "Created", "created p" + i);
            }
            await().atMost(TIMEOUT).until(() -> requests.size() == 6);
        }
        assertThat(requests).extracting(ApiEventRecorderTest::involvedName).containsExactly("p0", "p1", "p2", "p3", "p4", "p5");
        assertThat(mostInFlight).hasValue(1);
    }

    @Test
    void writesUpToTheGivenNumberOfEventsAtOnce() {
        try (ApiEventRecorder recorder = new ApiEventRecorder(client, "default-scheduler", "", InstantSource.system(), 4)) {
            // Each create is answered only once four are in flight (or after a second): one at a time would take 8 s.
            createsHeld = new CountDownLatch(4);
            for (int i = 0; i < 8; i++) {
                if (i == 4) {
                    await().atMost(TIMEOUT).until(() -> requests.size() == 4);
                    createsHeld = new CountDownLatch(4);
                }
                recorder.event(pod("p" + i), "Normal", "Scheduled", "Successfully assigned default/p" + i + " to node-" + i);
            }
            await().atMost(Duration.ofSeconds(3)).until(() -> requests.size() == 8);
        }
        assertThat(mostInFlight).hasValue(4);
        assertThat(requests).extracting(ApiEventRecorderTest::involvedName).containsExactlyInAnyOrder("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7");
    }

    @Test
    void aRepeatBumpsTheCountOfTheEventWrittenBefore() {
        try (ApiEventRecorder recorder = new ApiEventRecorder(client, "default-scheduler", "", InstantSource.system(), 4)) {
            recorder.event(pod("p"), "Warning", "FailedScheduling", "0/3 nodes are available");
            await().atMost(TIMEOUT).until(() -> requests.size() == 1);
            recorder.event(pod("p"), "Warning", "FailedScheduling", "0/3 nodes are available");
            recorder.event(pod("p"), "Warning", "FailedScheduling", "0/3 nodes are available");
            await().atMost(TIMEOUT).until(() -> requests.size() == 3);
        }
        String created = requests.getFirst();
        Matcher name = Pattern.compile("\"metadata\":\\{\"name\":\"(p\\.[0-9a-f]+)\"").matcher(created);
        assertThat(name.find()).as("name of %s", created).isTrue();
        assertThat(requests.subList(1, 3)).allSatisfy(request -> assertThat(request).startsWith("PATCH /api/v1/namespaces/default/events/" + name.group(1) + " "));
        assertThat(requests.subList(1, 3)).anySatisfy(request -> assertThat(request).contains("\"count\":2"));
        assertThat(requests.subList(1, 3)).anySatisfy(request -> assertThat(request).contains("\"count\":3"));
    }

    @Test
    void anEventWhoseCreateWasRefusedIsCreatedAgainNotPatched() {
        // One write at a time: the second starts once the first, refused, has ended.
        try (ApiEventRecorder recorder = new ApiEventRecorder(client, "default-scheduler", "", InstantSource.system())) {
            createsRefused.set(1);
            recorder.event(pod("p"), "Normal", "Scheduled", "Successfully assigned default/p to node-1");
            recorder.event(pod("p"), "Normal", "Scheduled", "Successfully assigned default/p to node-1");
            await().atMost(TIMEOUT).until(() -> requests.size() == 2);
        }
        assertThat(requests).allSatisfy(request -> assertThat(request).startsWith("POST /api/v1/namespaces/default/events "));
        assertThat(requests.get(1)).contains("\"count\":1");
    }

    private static Pod pod(String name) {
        return new PodBuilder().withApiVersion("v1").withKind("Pod")
                .withNewMetadata().withName(name).withNamespace("default").withUid("uid-" + name).endMetadata().build();
    }

    private static String involvedName(String request) {
        Matcher matcher = NAME.matcher(request);
        return matcher.find() ? matcher.group(1) : request;
    }
}
