package io.k4j.controllerkit.pods;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.k4j.api.selection.LabelSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ControllerRefManagerTest {
    private final ReplicaSet owner = new ReplicaSetBuilder().withNewMetadata().withName("web").withNamespace("ns").withUid("rs-uid").endMetadata().build();
    private final OwnerReference ref = OwnerReferences.newControllerRef(owner, "apps/v1", "ReplicaSet");
    private final List<String> patches = new ArrayList<>();

    @Test
    void keepsOwnedAdoptsMatchingOrphansAndReleasesNonMatching() {
        Pod owned = pod("owned", Map.of("app", "web"), ref);
        Pod orphan = pod("orphan", Map.of("app", "web"), null);
        Pod otherOrphan = pod("other", Map.of("app", "db"), null);
        Pod ownedNoLongerMatching = pod("relabelled", Map.of("app", "db"), ref);
        Pod ownedBySomeoneElse = pod("foreign", Map.of("app", "web"),
                new OwnerReference("apps/v1", true, true, "ReplicaSet", "other", "other-uid"));

        List<Pod> claimed = manager(true).claim(List.of(owned, orphan, otherOrphan, ownedNoLongerMatching, ownedBySomeoneElse));

        assertThat(claimed).extracting(pod -> pod.getMetadata().getName()).containsExactly("owned", "orphan");
        assertThat(patches).hasSize(2);
        assertThat(patches.get(0)).startsWith("orphan ").contains("\"uid\":\"rs-uid\"", "\"controller\":true");
        assertThat(patches.get(1)).startsWith("relabelled ").contains("\"$patch\":\"delete\"");
    }

    @Test
    void adoptsNothingWhenTheOwnerCannotAdopt() {
        List<Pod> claimed = manager(false).claim(List.of(pod("orphan", Map.of("app", "web"), null)));

        assertThat(claimed).isEmpty();
        assertThat(patches).isEmpty();
    }

    private ControllerRefManager<Pod> manager(boolean canAdopt) {
        return new ControllerRefManager<>(owner, ref, LabelSelector.ofMatchLabels(Map.of("app", "web")), () -> canAdopt,
                (namespace, name, patch) -> patches.add(name + " " + patch));
    }

    private static Pod pod(String name, Map<String, String> labels, OwnerReference owner) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("ns").withUid(name + "-uid").withLabels(labels)
                .withOwnerReferences(owner == null ? List.of() : List.of(owner)).endMetadata().build();
    }
}
