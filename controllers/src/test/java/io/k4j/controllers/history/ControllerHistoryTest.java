package io.k4j.controllers.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.api.selection.LabelSelector;
import io.k4j.controllerkit.informers.Lister;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ControllerHistoryTest {
    private final StatefulSet owner = new StatefulSetBuilder().withNewMetadata().withName("web").withNamespace("default").withUid("set-uid")
            .addToAnnotations("kubernetes.io/change-cause", "kubectl apply").endMetadata().build();

    @Test
    void aRevisionStoresTheTemplateAsAReplacePatchNamedByItsHash() {
        ControllerRevision revision = ControllerHistory.newRevision(owner, "apps/v1", "StatefulSet", template("nginx:1.25"), 3, 0);

        String hash = revision.getMetadata().getLabels().get(ControllerHistory.CONTROLLER_REVISION_HASH_LABEL);
        assertThat(hash).matches("[bcdfghjklmnpqrstvwxz2456789]+");
        assertThat(revision.getMetadata().getName()).isEqualTo("web-" + hash);
        assertThat(revision.getMetadata().getLabels()).containsEntry("app", "nginx");
        assertThat(revision.getMetadata().getAnnotations()).containsEntry("kubernetes.io/change-cause", "kubectl apply");
        assertThat(revision.getRevision()).isEqualTo(3L);
        assertThat(revision.getMetadata().getOwnerReferences().get(0).getController()).isTrue();
        assertThat(ControllerHistory.templatePatch(template("nginx:1.25")).path("spec").path("template").path("$patch").asText()).isEqualTo("replace");
        assertThat(ControllerHistory.templateOf(revision)).isEqualTo(template("nginx:1.25"));
    }

    @Test
    void theHashDependsOnTheTemplateAndTheCollisionCountOnly() {
        ControllerRevision first = ControllerHistory.newRevision(owner, "apps/v1", "StatefulSet", template("nginx:1.25"), 1, 0);
        ControllerRevision sameTemplateLater = ControllerHistory.newRevision(owner, "apps/v1", "StatefulSet", template("nginx:1.25"), 7, 0);
        ControllerRevision otherTemplate = ControllerHistory.newRevision(owner, "apps/v1", "StatefulSet", template("nginx:1.27"), 1, 0);
        ControllerRevision collided = ControllerHistory.newRevision(owner, "apps/v1", "StatefulSet", template("nginx:1.25"), 1, 1);

        assertThat(sameTemplateLater.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
        assertThat(ControllerHistory.equalRevision(first, sameTemplateLater)).isTrue();
        assertThat(ControllerHistory.equalRevision(first, otherTemplate)).isFalse();
        assertThat(collided.getMetadata().getName()).isNotEqualTo(first.getMetadata().getName());
    }

    @Test
    void createRaisesTheCollisionCountWhenADifferentRevisionHasTheName() {
        CacheImpl<ControllerRevision> cache = new CacheImpl<>();
        InMemoryRevisionStore store = new InMemoryRevisionStore(cache);
        ControllerHistory history = new ControllerHistory(store, new Lister<>(cache));
        // Someone else's revision sits under the name the template hashes to.
        ControllerRevision squatter = ControllerHistory.newRevision(owner, "apps/v1", "StatefulSet", template("nginx:1.25"), 1, 0);
        squatter.setData(Map.of("spec", Map.of()));
        store.create(squatter);

        int[] collisionCount = {0};
        ControllerRevision created = history.create(owner, "apps/v1", "StatefulSet", template("nginx:1.25"), 1, collisionCount);

        assertThat(collisionCount[0]).isEqualTo(1);
        assertThat(created.getMetadata().getName()).isNotEqualTo(squatter.getMetadata().getName());
        List<ControllerRevision> owned = history.list(owner, "apps/v1", "StatefulSet", LabelSelector.ofMatchLabels(Map.of("app", "nginx")));
        assertThat(owned).hasSize(2);
        assertThat(ControllerHistory.nextRevision(owned)).isEqualTo(2);
    }

    private static PodTemplateSpec template(String image) {
        return new PodTemplateSpecBuilder().withNewMetadata().addToLabels("app", "nginx").endMetadata()
                .withNewSpec().addNewContainer().withName("nginx").withImage(image).endContainer().endSpec().build();
    }
}
