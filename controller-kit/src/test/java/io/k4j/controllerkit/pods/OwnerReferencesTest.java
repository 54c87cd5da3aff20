package io.k4j.controllerkit.pods;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

class OwnerReferencesTest {
    private static Pod podControlledBy(String kind, boolean controller) {
        return new PodBuilder().withNewMetadata().withNamespace("apps").withName("web-0")
                .addNewOwnerReference().withApiVersion("apps/v1").withKind(kind).withName("web").withUid("uid-web").withController(controller).endOwnerReference()
                .endMetadata().build();
    }

    @Test
    void controllerKeyIsTheNamespacedKeyOfTheControllerOfThatKind() {
        assertThat(OwnerReferences.controllerKey(podControlledBy("StatefulSet", true), "StatefulSet")).contains("apps/web");
    }

    @Test
    void controllerKeyIsEmptyForAnotherKindAnOwnerThatIsNoControllerOrNoOwner() {
        assertThat(OwnerReferences.controllerKey(podControlledBy("DaemonSet", true), "StatefulSet")).isEmpty();
        assertThat(OwnerReferences.controllerKey(podControlledBy("StatefulSet", false), "StatefulSet")).isEmpty();
        ConfigMap orphan = new ConfigMapBuilder().withNewMetadata().withNamespace("apps").withName("settings").endMetadata().build();
        assertThat(OwnerReferences.controllerKey(orphan, "StatefulSet")).isEmpty();
    }
}
