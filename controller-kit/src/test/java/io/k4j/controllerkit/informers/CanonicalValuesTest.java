package io.k4j.controllerkit.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EmptyDirVolumeSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ProjectedVolumeSource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import org.junit.jupiter.api.Test;

class CanonicalValuesTest {
    @Test
    void equalValuesShareTheFirstInstanceAndOthersTakeTheSlot() {
        CanonicalValues values = new CanonicalValues(64);
        Toleration first = toleration("not-ready");
        Toleration equal = toleration("not-ready");
        Toleration other = toleration("unreachable");

        assertThat(values.canonical(first)).isSameAs(first);
        assertThat(values.canonical(equal)).isSameAs(first);
        assertThat(values.canonical(other)).isSameAs(other);
        assertThat(values.canonical(toleration("unreachable"))).isSameAs(other);
    }

    @Test
    void aValueOfAnotherClassIsNeverTaken() {
        CanonicalValues values = new CanonicalValues(1);
        ContainerPort port = new ContainerPort(80, null, null, null, "TCP");

        values.canonical(port);

        Toleration toleration = toleration("k");
        assertThat(values.canonical(toleration)).isSameAs(toleration);
    }

    @Test
    void leavesOutTheModelPartsThatCanHoldAQuantity() {
        // fabric8 compares quantities by their numbers, so sharing would turn one pod's 1000m into another's 1.
        assertThat(new Quantity("1000m")).isEqualTo(new Quantity("1"));
        assertThat(CanonicalValues.TYPES).doesNotContain(Quantity.class, ResourceRequirements.class, EmptyDirVolumeSource.class,
                EnvVar.class, ProjectedVolumeSource.class, Container.class);
        assertThat(CanonicalValues.TYPES).contains(Toleration.class, ContainerPort.class);
    }

    @Test
    void refusesATableSizeThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> new CanonicalValues(100)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
    }

    private static Toleration toleration(String key) {
        return new TolerationBuilder().withKey(key).withOperator("Exists").withEffect("NoExecute").withTolerationSeconds(300L).build();
    }
}
