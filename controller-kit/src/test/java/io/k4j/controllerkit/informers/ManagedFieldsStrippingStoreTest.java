package io.k4j.controllerkit.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class ManagedFieldsStrippingStoreTest {
    @Test
    void keepsObjectsWithoutTheirManagedFields() {
        ManagedFieldsStrippingStore<Pod> store = new ManagedFieldsStrippingStore<>();
        Pod pod = pod("1");

        assertThat(store.put(store.getKey(pod), pod)).isNull();

        Pod kept = store.get("default/web");
        assertThat(kept.getMetadata().getManagedFields()).isNull();
        assertThat(kept.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(kept.getSpec().getNodeName()).isEqualTo("node-a");
    }

    @Test
    void replacesAndReturnsThePreviousObject() {
        ManagedFieldsStrippingStore<Pod> store = new ManagedFieldsStrippingStore<>();
        store.put("default/web", pod("1"));

        Pod previous = store.put("default/web", pod("2"));

        assertThat(previous.getMetadata().getResourceVersion()).isEqualTo("1");
        assertThat(store.get("default/web").getMetadata().getResourceVersion()).isEqualTo("2");
        assertThat(store.size()).isEqualTo(1);
    }

    private static Pod pod(String resourceVersion) {
        return new PodBuilder()
                .withNewMetadata().withNamespace("default").withName("web").withResourceVersion(resourceVersion)
                .addToLabels("app", "web")
                .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").withOperation("Update")
                        .withApiVersion("v1").withFieldsType("FieldsV1").build())
                .endMetadata()
                .withNewSpec().withNodeName("node-a").endSpec()
                .build();
    }
}
