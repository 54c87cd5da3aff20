package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.storage.etcd.EtcdKeyValueStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The apiserver compacts etcd's history every {@code --etcd-compaction-interval}, as upstream's does: without it etcd
 * keeps every revision until it reaches its space quota and refuses writes.
 */
class EtcdCompactionIT {
    @TempDir
    static Path temporaryDirectory;

    private static EtcdBackedServer cluster;

    @BeforeAll
    static void startServer() {
        cluster = EtcdBackedServer.start(temporaryDirectory.resolve("data"), "--etcd-compaction-interval=1s");
    }

    @AfterAll
    static void stopServer() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theServerCompactsEtcdsHistoryAndTheApiGoesOnWorking() throws Exception {
        try (KubernetesClient client = cluster.server().client();
                EtcdKeyValueStore etcdView = EtcdKeyValueStore.connect(cluster.etcd().endpoint())) {
            ConfigMap first = client.configMaps().inNamespace("default")
                    .resource(new ConfigMapBuilder().withNewMetadata().withName("history").endMetadata().withData(Map.of("n", "1")).build())
                    .create();
            long firstRevision = Long.parseLong(first.getMetadata().getResourceVersion());

            await().atMost(Duration.ofSeconds(30)).until(() -> etcdView.compactedRevision() > firstRevision);

            // The state at a compacted revision is gone, and the answer is upstream's 410 Expired: for configmaps, which the
            // watch cache serves, as for events, which are read from storage.
            ListOptions atFirst = new ListOptionsBuilder().withResourceVersion(first.getMetadata().getResourceVersion()).withResourceVersionMatch("Exact").build();
            ListOptions atFirstPaged = new ListOptionsBuilder(atFirst).withLimit(10L).build();
            assertThatThrownBy(() -> client.configMaps().inNamespace("default").list(atFirst))
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(410));
            assertThatThrownBy(() -> client.configMaps().inNamespace("default").list(atFirstPaged))
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(410));
            assertThatThrownBy(() -> client.v1().events().inNamespace("default").list(atFirstPaged))
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(410));
            // The live state is not: reads, writes and a watch's events go on.
            ConfigMap updated = client.configMaps().inNamespace("default").withName("history")
                    .edit(configMap -> new ConfigMapBuilder(configMap).withData(Map.of("n", "2")).build());
            assertThat(client.configMaps().inNamespace("default").withName("history").get().getData()).containsEntry("n", "2");
            assertThat(Long.parseLong(updated.getMetadata().getResourceVersion())).isGreaterThan(etcdView.compactedRevision());
        }
    }
}
