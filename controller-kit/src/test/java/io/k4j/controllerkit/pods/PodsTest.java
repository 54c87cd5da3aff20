package io.k4j.controllerkit.pods;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodsTest {
    @Test
    void availableOnlyAfterMinReadySeconds() {
        Pod pod = new PodBuilder().withNewStatus().withPhase("Running")
                .addNewCondition().withType("Ready").withStatus("True").withLastTransitionTime("2026-01-01T00:00:00Z").endCondition()
                .endStatus().withNewMetadata().withName("p").endMetadata().build();

        assertThat(Pods.isReady(pod)).isTrue();
        assertThat(Pods.isAvailable(pod, 10, Instant.parse("2026-01-01T00:00:05Z"))).isFalse();
        assertThat(Pods.isAvailable(pod, 10, Instant.parse("2026-01-01T00:00:10Z"))).isTrue();
        assertThat(Pods.isActive(pod)).isTrue();
    }

    @Test
    void finishedAndDeletingPodsAreNotActive() {
        Pod succeeded = new PodBuilder().withNewMetadata().withName("a").endMetadata().withNewStatus().withPhase("Succeeded").endStatus().build();
        Pod deleting = new PodBuilder().withNewMetadata().withName("b").withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();

        assertThat(Pods.isActive(succeeded)).isFalse();
        assertThat(Pods.isActive(deleting)).isFalse();
    }

    @Test
    void podFromTemplateCopiesTheTemplateAndSetsTheControllerReference() {
        PodTemplateSpec template = new PodTemplateSpecBuilder()
                .withNewMetadata().withLabels(Map.of("app", "web")).withAnnotations(Map.of("a", "b")).endMetadata()
                .withNewSpec().addNewContainer().withName("c").withImage("nginx").endContainer().endSpec()
                .build();
        var owner = new ReplicaSetBuilder().withNewMetadata().withName("web-abc").withUid("u").endMetadata().build();

        Pod pod = ApiPodControl.podFromTemplate(template, owner, OwnerReferences.newControllerRef(owner, "apps/v1", "ReplicaSet"));

        assertThat(pod.getMetadata().getGenerateName()).isEqualTo("web-abc-");
        assertThat(pod.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(pod.getMetadata().getOwnerReferences()).singleElement().satisfies(reference -> {
            assertThat(reference.getUid()).isEqualTo("u");
            assertThat(reference.getController()).isTrue();
        });
        pod.getSpec().getContainers().get(0).setImage("changed");
        assertThat(template.getSpec().getContainers().get(0).getImage()).as("the template is not shared").isEqualTo("nginx");
    }
}
