package io.k4j.kubelet.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class SkeletonPodStoreTest {
    @Test
    void keepsWhatIdentifiesAPodWithSharedEmptyCollections() {
        Pod pod = new PodBuilder().withNewMetadata().withNamespace("ns").withName("web-1").withUid("u-1").withResourceVersion("7")
                .addToLabels("app", "web").endMetadata()
                .withNewSpec().withNodeName("node-1").addNewContainer().withName("app").withImage("nginx").endContainer().endSpec()
                .build();
        List<Pod> seen = new ArrayList<>();
        SkeletonPodStore store = new SkeletonPodStore(seen::add);

        store.put(SkeletonPodStore.key(pod), pod);
        Pod skeleton = store.get("ns/web-1");

        assertThat(seen).as("the whole pod, seen before it is cut").containsExactly(pod);
        assertThat(seen.get(0).getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(skeleton.getMetadata().getNamespace()).isEqualTo("ns");
        assertThat(skeleton.getMetadata().getName()).isEqualTo("web-1");
        assertThat(skeleton.getMetadata().getUid()).isEqualTo("u-1");
        assertThat(skeleton.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(skeleton.getSpec().getNodeName()).isEqualTo("node-1");
        assertThat(skeleton.getMetadata().getLabels()).isSameAs(Collections.emptyMap());
        assertThat(skeleton.getSpec().getContainers()).isSameAs(Collections.emptyList());
        assertThat(skeleton.getAdditionalProperties()).isSameAs(Collections.emptyMap());
    }
}
