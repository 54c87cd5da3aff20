package io.k4j.kubelet.podworkers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class PodChangesTest {
    private final Pod pod = new PodBuilder()
            .withNewMetadata().withName("web").withNamespace("default").withUid("uid-web").withResourceVersion("1")
            .addToLabels("app", "web").endMetadata()
            .withNewSpec().addNewContainer().withName("c1").withImage("busybox").endContainer().endSpec()
            .withNewStatus().withPhase("Pending").endStatus()
            .build();

    @Test
    void aStatusTheKubeletWroteItselfNeedsNoSync() {
        Pod written = new PodBuilder(pod).editMetadata().withResourceVersion("2").endMetadata()
                .editStatus().addNewContainerStatus().withName("c1").withNewState().withNewWaiting()
                .withReason("ErrImagePull").endWaiting().endState().endContainerStatus().endStatus()
                .build();

        assertThat(PodChanges.needsSync(pod, written)).isFalse();
    }

    @Test
    void specLabelsDeletionAndPhaseChangesNeedASync() {
        assertThat(PodChanges.needsSync(pod, new PodBuilder(pod).editSpec().editFirstContainer().withImage("nginx")
                .endContainer().endSpec().build())).isTrue();
        assertThat(PodChanges.needsSync(pod, new PodBuilder(pod).editMetadata().addToLabels("tier", "front")
                .endMetadata().build())).isTrue();
        assertThat(PodChanges.needsSync(pod, new PodBuilder(pod).editMetadata()
                .withDeletionTimestamp("2026-01-01T00:00:00Z").withDeletionGracePeriodSeconds(30L).endMetadata()
                .build())).isTrue();
        assertThat(PodChanges.needsSync(pod, new PodBuilder(pod).editStatus().withPhase("Failed").endStatus().build()))
                .isTrue();
    }
}
