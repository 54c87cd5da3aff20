package io.k4j.controllers.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeploymentUtilTest {
    @Test
    void roundsSurgeUpAndUnavailabilityDown() {
        assertThat(DeploymentUtil.scaledValue(new IntOrString("25%"), 10, true)).isEqualTo(3);
        assertThat(DeploymentUtil.scaledValue(new IntOrString("25%"), 10, false)).isEqualTo(2);
        assertThat(DeploymentUtil.scaledValue(new IntOrString(4), 10, false)).isEqualTo(4);
        assertThat(DeploymentUtil.resolveFenceposts(new IntOrString("25%"), new IntOrString("25%"), 1)).containsExactly(1, 0);
        // Both fenceposts rounding to zero would stall a rollout: unavailability becomes 1.
        assertThat(DeploymentUtil.resolveFenceposts(new IntOrString(0), new IntOrString("10%"), 3)).containsExactly(0, 1);
    }

    @Test
    void hashesTemplatesDeterministicallyWithUpstreamsAlphabet() {
        PodTemplateSpec template = template("nginx:1.27");
        String hash = DeploymentUtil.computeHash(template, null);

        assertThat(hash).matches("[bcdfghjklmnpqrstvwxz2456789]{1,10}");
        assertThat(DeploymentUtil.computeHash(template("nginx:1.27"), null)).isEqualTo(hash);
        assertThat(DeploymentUtil.computeHash(template("nginx:1.28"), null)).isNotEqualTo(hash);
        assertThat(DeploymentUtil.computeHash(template, 1)).isNotEqualTo(hash);
    }

    @Test
    void comparesTemplatesIgnoringTheHashLabel() {
        PodTemplateSpec withHash = new PodTemplateSpecBuilder(template("nginx")).editMetadata().addToLabels("pod-template-hash", "abc").endMetadata().build();
        assertThat(DeploymentUtil.equalIgnoreHash(withHash, template("nginx"))).isTrue();
        assertThat(DeploymentUtil.equalIgnoreHash(withHash, template("httpd"))).isFalse();
    }

    @Test
    void keepsReplacedRevisionsInTheHistoryOnRollback() {
        ReplicaSet replicaSet = new ReplicaSetBuilder()
                .withNewMetadata().withName("web-1").withAnnotations(Map.of(DeploymentUtil.REVISION_ANNOTATION, "1")).endMetadata()
                .withNewSpec().withReplicas(0).endSpec().build();
        io.fabric8.kubernetes.api.model.apps.Deployment deployment = DeploymentControllerTest.deployment("web", 3, "nginx");
        deployment.getMetadata().setAnnotations(Map.of("team", "blue", DeploymentUtil.REVISION_ANNOTATION, "2"));

        assertThat(DeploymentUtil.setNewReplicaSetAnnotations(deployment, replicaSet, "3", true)).isTrue();
        assertThat(replicaSet.getMetadata().getAnnotations())
                .containsEntry(DeploymentUtil.REVISION_ANNOTATION, "3")
                .containsEntry(DeploymentUtil.REVISION_HISTORY_ANNOTATION, "1")
                .containsEntry("team", "blue");

        DeploymentUtil.setNewReplicaSetAnnotations(deployment, replicaSet, "5", true);
        assertThat(replicaSet.getMetadata().getAnnotations()).containsEntry(DeploymentUtil.REVISION_HISTORY_ANNOTATION, "1,3");
        // A lower revision never replaces a higher one.
        assertThat(DeploymentUtil.setNewReplicaSetAnnotations(deployment, replicaSet, "4", true)).isFalse();
    }

    private static PodTemplateSpec template(String image) {
        return new PodTemplateSpecBuilder()
                .withNewMetadata().withLabels(Map.of("app", "web")).endMetadata()
                .withNewSpec().addNewContainer().withName("web").withImage(image).endContainer().endSpec()
                .build();
    }
}
