package io.k4j.controllers.rootcacertpublisher;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RootCaCertPublisherTest {
    private static final String CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    private final CacheImpl<Namespace> namespaces = new CacheImpl<>();
    private final CacheImpl<ConfigMap> configMaps = new CacheImpl<>();
    private final List<String> writes = new ArrayList<>();
    private final List<ConfigMap> written = new ArrayList<>();
    private final RootCaCertPublisher publisher = new RootCaCertPublisher(new Lister<>(namespaces), new Lister<>(configMaps),
            new RootCaCertPublisher.ConfigMapWriter() {
                @Override
                public void create(ConfigMap configMap) {
                    writes.add("create " + configMap.getMetadata().getNamespace());
                    written.add(configMap);
                }

                @Override
                public void update(ConfigMap configMap) {
                    writes.add("update " + configMap.getMetadata().getNamespace());
                    written.add(configMap);
                }
            }, CA);

    @AfterEach
    void shutDown() {
        publisher.close();
    }

    @Test
    void publishesTheCaIntoEveryNamespaceAndRepairsEdits() {
        namespaces.put(new NamespaceBuilder().withNewMetadata().withName("team").endMetadata().build());
        publisher.sync("team");
        assertThat(writes).containsExactly("create team");
        ConfigMap published = written.getFirst();
        assertThat(published.getMetadata().getName()).isEqualTo("kube-root-ca.crt");
        assertThat(published.getData()).isEqualTo(Map.of("ca.crt", CA));
        assertThat(published.getMetadata().getAnnotations()).containsKey("kubernetes.io/description");

        configMaps.put(published);
        publisher.sync("team");
        assertThat(writes).containsExactly("create team");

        configMaps.put(new ConfigMapBuilder(published).withData(Map.of("ca.crt", "tampered")).build());
        publisher.sync("team");
        assertThat(writes).containsExactly("create team", "update team");
        assertThat(written.getLast().getData()).isEqualTo(Map.of("ca.crt", CA));
    }

    @Test
    void skipsNamespacesBeingDeleted() {
        namespaces.put(new NamespaceBuilder().withNewMetadata().withName("doomed").withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build());
        publisher.sync("doomed");
        assertThat(writes).isEmpty();
    }
}
