package io.k4j.kubelet.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import org.junit.jupiter.api.Test;

class StaticPodsTest {
    private static Pod staticPod() throws Exception {
        Pod pod = PodManifests.decode("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: web
                spec:
                  containers:
                  - name: c
                    image: busybox
                """, "/m/web.yaml", "node-a", "now");
        pod.setStatus(new PodStatusBuilder().withPhase("Running").build());
        return pod;
    }

    @Test
    void theMirrorPodIsACopyControlledByTheNodeWithoutUidOrStatus() throws Exception {
        Pod staticPod = staticPod();

        Pod mirror = StaticPods.mirrorPodOf(staticPod, "node-a", "node-uid");

        assertThat(mirror.getMetadata().getName()).isEqualTo("web-node-a");
        assertThat(mirror.getMetadata().getUid()).isNull();
        assertThat(mirror.getStatus()).isNull();
        assertThat(mirror.getSpec()).isEqualTo(staticPod.getSpec());
        assertThat(mirror.getMetadata().getAnnotations())
                .containsEntry(StaticPods.CONFIG_MIRROR_ANNOTATION, staticPod.getMetadata().getUid())
                .containsEntry(StaticPods.CONFIG_HASH_ANNOTATION, staticPod.getMetadata().getUid())
                .containsEntry(StaticPods.CONFIG_SOURCE_ANNOTATION, "file");
        assertThat(mirror.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getApiVersion()).isEqualTo("v1");
            assertThat(owner.getKind()).isEqualTo("Node");
            assertThat(owner.getName()).isEqualTo("node-a");
            assertThat(owner.getUid()).isEqualTo("node-uid");
            assertThat(owner.getController()).isTrue();
            assertThat(owner.getBlockOwnerDeletion()).isNull();
        });
        assertThat(StaticPods.isMirrorPod(mirror)).isTrue();
        assertThat(staticPod.getMetadata().getUid()).isNotNull();
    }

    @Test
    void aMirrorPodMirrorsOnlyTheSameVersionAndNotWhileBeingDeleted() throws Exception {
        Pod staticPod = staticPod();
        Pod mirror = new PodBuilder(StaticPods.mirrorPodOf(staticPod, "node-a", "u")).editMetadata().withUid("m1").endMetadata().build();

        assertThat(StaticPods.isMirrorOf(mirror, staticPod)).isTrue();
        Pod changed = new PodBuilder(staticPod).editMetadata()
                .addToAnnotations(StaticPods.CONFIG_HASH_ANNOTATION, "other").endMetadata().build();
        assertThat(StaticPods.isMirrorOf(mirror, changed)).isFalse();
        Pod deleting = new PodBuilder(mirror).editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();
        assertThat(StaticPods.isMirrorOf(deleting, staticPod)).isFalse();
        Pod elsewhere = new PodBuilder(mirror).editMetadata().withNamespace("kube-system").endMetadata().build();
        assertThat(StaticPods.isMirrorOf(elsewhere, staticPod)).isFalse();
    }

    @Test
    void podsOfTheApiAreNeitherStaticNorMirrors() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("default")
                .addToAnnotations(StaticPods.CONFIG_SOURCE_ANNOTATION, "api").endMetadata().build();

        assertThat(StaticPods.isStaticPod(pod)).isFalse();
        assertThat(StaticPods.isMirrorPod(pod)).isFalse();
        assertThat(StaticPods.isStaticPod(new PodBuilder().withNewMetadata().withName("q").endMetadata().build())).isFalse();
    }
}
