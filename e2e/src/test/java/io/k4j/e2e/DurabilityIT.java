package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.k4j.storage.etcd.EtcdProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every acknowledged write survives {@code kill -9} of the server, on both backends, and a server out of heap. */
class DurabilityIT {
    private static final int WRITERS = 8;
    private static final int ACKNOWLEDGED_BEFORE_KILL = 300;

    @TempDir
    Path temporaryDirectory;

    @Test
    void acknowledgedWritesSurviveKillOnTheEmbeddedStore() throws Exception {
        try (K4jServer server = K4jServer.start(temporaryDirectory.resolve("data"))) {
            killDuringWritesAndVerify(server);
        }
    }

    @Test
    void acknowledgedWritesSurviveKillOnEtcd() throws Exception {
        try (EtcdProcess etcd = EtcdProcess.start();
                K4jServer server = K4jServer.start(temporaryDirectory.resolve("data"), "--datastore-endpoint=" + etcd.endpoint())) {
            killDuringWritesAndVerify(server);
        }
    }

    /**
     * A server out of heap exits with the JVM's status 3 instead of serving on with threads the error ended (a server
     * whose HTTP selector died kept its port open and answered nothing), and a restart with a larger heap has every
     * write it acknowledged before.
     */
    @Test
    void aServerOutOfHeapExitsAndARestartHasEveryAcknowledgedWrite() throws Exception {
        String mebibyte = "x".repeat(1 << 20);
        List<String> acknowledged = new ArrayList<>();
        try (K4jServer server = K4jServer.startWithHeap(temporaryDirectory.resolve("data"), "256m")) {
            try (KubernetesClient client = client(server)) {
                // Bounded: 1,000 MiB of configmaps is four times the heap (the watch cache and the controller manager's
                // informer each keep every one of them), and the first write that fails, unacknowledged, ends the loop.
                for (int index = 0; index < 1_000; index++) {
                    String name = "large-" + index;
                    try {
                        client.configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                                .withNewMetadata().withName(name).endMetadata()
                                .addToData("value", mebibyte)
                                .build()).create();
                        acknowledged.add(name);
                    } catch (RuntimeException e) {
                        break;
                    }
                }
            }
            assertThat(server.awaitExit(Duration.ofMinutes(2))).isEqualTo(3);
            assertThat(server.logTail(20)).contains("Terminating due to java.lang.OutOfMemoryError");

            server.restart("1g");
            assertThat(acknowledged).isNotEmpty();
            assertThat(storedConfigMaps(server)).containsAll(acknowledged);
        }
    }

    private static void killDuringWritesAndVerify(K4jServer server) throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<RuntimeException> firstFailure = new AtomicReference<>();
        ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
        try (KubernetesClient client = client(server)) {
            for (int writer = 0; writer < WRITERS; writer++) {
                int id = writer;
                writers.submit(() -> {
                    // Bounded: stops at the kill or after a fixed number of writes. A write that fails before the kill (a
                    // timeout on a loaded machine) is not acknowledged, and the writer goes on.
                    for (int sequence = 0; sequence < 10_000 && !stop.get(); sequence++) {
                        String name = "durable-" + id + "-" + sequence;
                        try {
                            client.configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                                    .withNewMetadata().withName(name).endMetadata()
                                    .addToData("sequence", Integer.toString(sequence))
                                    .build()).create();
                            acknowledged.add(name);
                        } catch (RuntimeException e) {
                            if (stop.get()) {
                                return;
                            }
                            firstFailure.compareAndSet(null, e);
                        }
                    }
                });
            }
            // Says why when it times out: once this waited out its minute on a loaded machine with no cause shown.
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(acknowledged.size())
                    .as("acknowledged writes (first failed write: %s)", firstFailure.get())
                    .isGreaterThanOrEqualTo(ACKNOWLEDGED_BEFORE_KILL));
            server.kill();
            stop.set(true);
        } finally {
            writers.shutdown();
            writers.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
        }

        server.restart();
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(ACKNOWLEDGED_BEFORE_KILL);
        assertThat(storedConfigMaps(server)).containsAll(acknowledged);
    }

    /** The names of the configmaps the server has in namespace default. */
    private static Set<String> storedConfigMaps(K4jServer server) throws java.io.IOException {
        try (KubernetesClient client = client(server)) {
            return client.configMaps().inNamespace("default").list().getItems().stream()
                    .map(configMap -> configMap.getMetadata().getName())
                    .collect(Collectors.toSet());
        }
    }

    private static KubernetesClient client(K4jServer server) throws java.io.IOException {
        Config config = Config.fromKubeconfig(Files.readString(server.kubeconfig()));
        // No retries: a retried create could store a write the test never saw acknowledged, or fail as AlreadyExists.
        config.setRequestRetryBackoffLimit(0);
        config.setRequestTimeout((int) Duration.ofMinutes(1).toMillis());
        return new KubernetesClientBuilder().withConfig(config).build();
    }
}
