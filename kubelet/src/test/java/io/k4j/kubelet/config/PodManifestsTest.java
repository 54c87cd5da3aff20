package io.k4j.kubelet.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import org.junit.jupiter.api.Test;

class PodManifestsTest {
    private static final String MANIFEST = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: web
              labels:
                app: web
            spec:
              containers:
              - name: nginx
                image: nginx
                ports:
                - containerPort: 80
              - name: tool
                image: busybox:1.35
            """;

    @Test
    void aManifestBecomesAPodOfTheNodeWithAContentHashAsUid() throws Exception {
        Pod pod = PodManifests.decode(MANIFEST, "/m/web.yaml", "Node-A", "2026-01-01T00:00:00Z");

        assertThat(pod.getMetadata().getName()).isEqualTo("web-node-a");
        assertThat(pod.getMetadata().getNamespace()).isEqualTo("default");
        assertThat(pod.getSpec().getNodeName()).isEqualTo("Node-A");
        assertThat(pod.getMetadata().getUid()).matches("[0-9a-f]{32}");
        assertThat(pod.getMetadata().getAnnotations())
                .containsEntry(StaticPods.CONFIG_HASH_ANNOTATION, pod.getMetadata().getUid())
                .containsEntry(StaticPods.CONFIG_SOURCE_ANNOTATION, "file")
                .containsEntry(StaticPods.CONFIG_SEEN_ANNOTATION, "2026-01-01T00:00:00Z");
        assertThat(pod.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(StaticPods.isStaticPod(pod)).isTrue();
        assertThat(StaticPods.isMirrorPod(pod)).isFalse();
    }

    @Test
    void theApiDefaultsTheKubeletReadsAreApplied() throws Exception {
        Pod pod = PodManifests.decode(MANIFEST, "/m/web.yaml", "a", "now");

        assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Always");
        assertThat(pod.getSpec().getDnsPolicy()).isEqualTo("ClusterFirst");
        assertThat(pod.getSpec().getTerminationGracePeriodSeconds()).isEqualTo(30L);
        assertThat(pod.getSpec().getContainers().get(0).getImagePullPolicy()).isEqualTo("Always");
        assertThat(pod.getSpec().getContainers().get(1).getImagePullPolicy()).isEqualTo("IfNotPresent");
        assertThat(pod.getSpec().getContainers().get(0).getPorts().get(0).getProtocol()).isEqualTo("TCP");
        assertThat(pod.getSpec().getContainers().get(0).getTerminationMessagePath()).isEqualTo("/dev/termination-log");
        assertThat(pod.getSpec().getTolerations()).extracting(Toleration::getOperator, Toleration::getEffect)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("Exists", "NoExecute"));
    }

    @Test
    void theHashChangesWithTheContentTheNodeAndTheFileButNotWithTheTimeSeen() throws Exception {
        String uid = PodManifests.decode(MANIFEST, "/m/web.yaml", "a", "t1").getMetadata().getUid();

        assertThat(PodManifests.decode(MANIFEST, "/m/web.yaml", "a", "t2").getMetadata().getUid()).isEqualTo(uid);
        assertThat(PodManifests.decode(MANIFEST.replace("busybox:1.35", "busybox:1.36"), "/m/web.yaml", "a", "t1")
                .getMetadata().getUid()).isNotEqualTo(uid);
        assertThat(PodManifests.decode(MANIFEST, "/m/other.yaml", "a", "t1").getMetadata().getUid()).isNotEqualTo(uid);
        assertThat(PodManifests.decode(MANIFEST, "/m/web.yaml", "b", "t1").getMetadata().getUid()).isNotEqualTo(uid);
    }

    @Test
    void aNamespaceAndAUidOfTheManifestAreKept() throws Exception {
        Pod pod = PodManifests.decode(MANIFEST.replace("  name: web\n", "  name: web\n  namespace: kube-system\n  uid: fixed\n"),
                "/m/web.yaml", "a", "now");

        assertThat(pod.getMetadata().getNamespace()).isEqualTo("kube-system");
        assertThat(pod.getMetadata().getUid()).isEqualTo("fixed");
        assertThat(pod.getMetadata().getAnnotations()).containsEntry(StaticPods.CONFIG_HASH_ANNOTATION, "fixed");
    }

    @Test
    void whatIsNotAValidPodIsRefused() {
        assertThatThrownBy(() -> PodManifests.decode("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", "f", "a", "now"))
                .isInstanceOf(PodManifests.InvalidManifestException.class).hasMessageContaining("not a Pod");
        assertThatThrownBy(() -> PodManifests.decode("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    image: i\n", "f", "a", "now"))
                .isInstanceOf(PodManifests.InvalidManifestException.class).hasMessageContaining("name is required");
        assertThatThrownBy(() -> PodManifests.decode("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec: {}\n", "f", "a", "now"))
                .isInstanceOf(PodManifests.InvalidManifestException.class).hasMessageContaining("spec.containers");
        assertThatThrownBy(() -> PodManifests.decode("{not yaml: [", "f", "a", "now"))
                .isInstanceOf(PodManifests.InvalidManifestException.class);
    }
}
