package io.k4j.apiserver.registry.scale;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.api.apply.FieldSet;
import io.k4j.api.apply.ManagedFields;
import io.k4j.api.apply.Manager;
import io.k4j.api.apply.PathElement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ScaleManagedFieldsTest {
    private static final Optional<Instant> EARLIER = Optional.of(Instant.parse("2024-05-01T10:00:00Z"));
    private static final Optional<Instant> LATER = Optional.of(Instant.parse("2024-05-01T11:00:00Z"));
    private static final List<PathElement> IMAGE = List.of(new PathElement.Field("spec"), new PathElement.Field("image"));
    private static final Manager CREATOR = new Manager("kubectl-create", Manager.Operation.UPDATE, "apps/v1", "");
    private static final Manager LABELLER = new Manager("labeller", Manager.Operation.UPDATE, "apps/v1", "");
    private static final Manager SCALER = new Manager("scaler", Manager.Operation.APPLY, "", "scale");

    private final ScaleManagedFields conversion = new ScaleManagedFields("apps/v1");

    private static FieldSet fields(List<List<PathElement>> paths) {
        return FieldSet.of(paths);
    }

    private static ManagedFields parent() {
        ManagedFields parent = new ManagedFields();
        parent.put(CREATOR, new ManagedFields.Entry(fields(List.of(ScaleManagedFields.REPLICAS, IMAGE)), "apps/v1", EARLIER));
        parent.put(LABELLER, new ManagedFields.Entry(fields(List.of(IMAGE)), "apps/v1", EARLIER));
        return parent;
    }

    @Test
    void theScaleSeesTheManagersOfTheReplicasOwningOnlyThem() {
        ManagedFields scale = conversion.toSubresource(parent());

        assertThat(scale.entries()).containsOnlyKeys(CREATOR);
        ManagedFields.Entry entry = scale.get(CREATOR).orElseThrow();
        assertThat(entry.fields()).isEqualTo(fields(List.of(ScaleManagedFields.REPLICAS)));
        assertThat(entry.apiVersion()).isEqualTo("autoscaling/v1");
        assertThat(entry.time()).isEqualTo(EARLIER);
    }

    @Test
    void aManagerKeepingTheReplicasKeepsItsParentEntry() {
        ManagedFields parent = parent();

        ManagedFields written = conversion.toParent(parent, conversion.toSubresource(parent));

        assertThat(written.entries()).isEqualTo(parent.entries());
    }

    @Test
    void anApplierTakingTheReplicasOwnsThemOnTheParentWithTheScaleSubresource() {
        ManagedFields scale = new ManagedFields();
        scale.put(SCALER, new ManagedFields.Entry(fields(List.of(ScaleManagedFields.REPLICAS)), "autoscaling/v1", LATER));

        ManagedFields written = conversion.toParent(parent(), scale);

        assertThat(written.entries()).containsOnlyKeys(CREATOR, LABELLER, SCALER);
        assertThat(written.get(CREATOR).orElseThrow().fields()).isEqualTo(fields(List.of(IMAGE)));
        assertThat(written.get(SCALER).orElseThrow()).isEqualTo(new ManagedFields.Entry(fields(List.of(ScaleManagedFields.REPLICAS)), "apps/v1", LATER));
        assertThat(written.get(LABELLER)).isEqualTo(parent().get(LABELLER));
    }

    @Test
    void aParentEntryLeftWithNothingGoesAndAnUpdaterIsRecordedInTheParentVersion() {
        ManagedFields parent = new ManagedFields();
        Manager previousScaler = new Manager("kubectl", Manager.Operation.UPDATE, "apps/v1", "scale");
        parent.put(previousScaler, new ManagedFields.Entry(fields(List.of(ScaleManagedFields.REPLICAS)), "apps/v1", EARLIER));
        ManagedFields scale = new ManagedFields();
        Manager updater = new Manager("hpa", Manager.Operation.UPDATE, "autoscaling/v1", "scale");
        scale.put(updater, new ManagedFields.Entry(fields(List.of(ScaleManagedFields.REPLICAS)), "autoscaling/v1", LATER));

        ManagedFields written = conversion.toParent(parent, scale);

        Manager onParent = new Manager("hpa", Manager.Operation.UPDATE, "apps/v1", "scale");
        assertThat(written.entries()).containsOnlyKeys(onParent);
        assertThat(written.get(onParent).orElseThrow().apiVersion()).isEqualTo("apps/v1");
    }

    @Test
    void entriesOfAnotherVersionAreNotMapped() {
        ManagedFields parent = new ManagedFields();
        Manager old = new Manager("old", Manager.Operation.UPDATE, "apps/v1beta1", "");
        parent.put(old, new ManagedFields.Entry(fields(List.of(ScaleManagedFields.REPLICAS)), "apps/v1beta1", EARLIER));

        assertThat(conversion.toSubresource(parent).isEmpty()).isTrue();
        assertThat(conversion.toParent(parent, new ManagedFields()).isEmpty()).isTrue();
    }
}
