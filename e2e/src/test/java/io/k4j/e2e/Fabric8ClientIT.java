package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real fabric8 client (informer, watch, optimistic concurrency) against a started k4j server. */
class Fabric8ClientIT {
    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() throws IOException {
        server = K4jServer.start(temporaryDirectory.resolve("data"));
        client = server.client();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void informerSeesAddsUpdatesAndDeletes() {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("informed").endMetadata().build()).create();
        List<String> events = new CopyOnWriteArrayList<>();
        client.configMaps().inNamespace("informed").resource(configMap("before", "1")).create();
        SharedIndexInformer<ConfigMap> informer = client.configMaps().inNamespace("informed").inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap object) {
                events.add("add " + object.getMetadata().getName());
            }

            @Override
            public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
                events.add("update " + newObject.getMetadata().getName() + " " + newObject.getData().get("value"));
            }

            @Override
            public void onDelete(ConfigMap object, boolean deletedFinalStateUnknown) {
                events.add("delete " + object.getMetadata().getName());
            }
        });
        try {
            await().atMost(Duration.ofSeconds(20)).until(informer::hasSynced);
            assertThat(events).contains("add before");
            client.configMaps().inNamespace("informed").resource(configMap("after", "1")).create();
            client.configMaps().inNamespace("informed").withName("after").edit(configMap -> {
                configMap.getData().put("value", "2");
                return configMap;
            });
            client.configMaps().inNamespace("informed").withName("before").delete();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(events).containsSubsequence("add after", "update after 2", "delete before"));
            assertThat(informer.getStore().list()).extracting(configMap -> configMap.getMetadata().getName()).containsExactly("after");
        } finally {
            informer.close();
        }
    }

    @Test
    void watchFromAResourceVersionReplaysLaterChanges() {
        String resourceVersion = client.configMaps().inNamespace("default").list().getMetadata().getResourceVersion();
        client.configMaps().inNamespace("default").resource(configMap("watched", "1")).create();
        List<String> events = new CopyOnWriteArrayList<>();
        try (Watch ignored = client.configMaps().inNamespace("default").withResourceVersion(resourceVersion).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, ConfigMap resource) {
                events.add(action + " " + resource.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {}
        })) {
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(events).contains("ADDED watched"));
            client.configMaps().inNamespace("default").withName("watched").delete();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(events).contains("DELETED watched"));
        }
    }

    @Test
    void staleUpdateIsAConflict() {
        ConfigMap created = client.configMaps().inNamespace("default").resource(configMap("contested", "1")).create();
        client.configMaps().inNamespace("default").withName("contested").edit(configMap -> {
            configMap.getData().put("value", "2");
            return configMap;
        });
        created.getData().put("value", "stale");
        assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(KubernetesClientException.class,
                        () -> client.configMaps().inNamespace("default").resource(created).update()).getCode())
                .isEqualTo(409);
    }

    private static ConfigMap configMap(String name, String value) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().withData(new java.util.HashMap<>(Map.of("value", value))).build();
    }
}
