package io.k4j.controllers.endpointutil;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TriggerTimeTrackerTest {
    private static final String CREATED = "2026-01-01T00:10:00Z";

    private final TriggerTimeTracker tracker = new TriggerTimeTracker();

    private static Service service(String created) {
        return new ServiceBuilder().withNewMetadata().withNamespace("default").withName("web").withCreationTimestamp(created).endMetadata().build();
    }

    private static Pod pod(String name, String readySince) {
        return new PodBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withLastTransitionTime(readySince).endCondition().endStatus().build();
    }

    @Test
    void firstSyncOfAServiceIsDueToItsCreationEvenWhenItsPodsBecameReadyBefore() {
        assertThat(tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:00:00Z"))))
                .contains(Instant.parse(CREATED));
    }

    @Test
    void laterSyncsAreDueToTheEarliestReadinessChangeSinceThePreviousSync() {
        tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:11:00Z"), pod("web-2", "2026-01-01T00:11:00Z")));

        assertThat(tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:13:00Z"), pod("web-2", "2026-01-01T00:11:00Z"),
                pod("web-3", "2026-01-01T00:12:00Z"))))
                .as("web-3 is new, web-1 changed, web-2 did not")
                .contains(Instant.parse("2026-01-01T00:12:00Z"));
    }

    @Test
    void aSyncThatWritesNothingIsStillRemembered() {
        tracker.compute(service(CREATED), List.of());
        // A pod became ready, but the sync found the endpoints already right and wrote nothing.
        assertThat(tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:11:00Z")))).contains(Instant.parse("2026-01-01T00:11:00Z"));

        assertThat(tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:11:00Z"))))
                .as("a later write without a new change carries no trigger time, as upstream's")
                .isEmpty();
    }

    @Test
    void podsWithoutReadyConditionDoNotCount() {
        tracker.compute(service(CREATED), List.of());
        Pod pending = new PodBuilder().withNewMetadata().withNamespace("default").withName("web-1").endMetadata().build();

        assertThat(tracker.compute(service(CREATED), List.of(pending))).isEmpty();
    }

    @Test
    void aServiceCreatedAgainIsDueToItsNewCreation() {
        tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:11:00Z")));

        assertThat(tracker.compute(service("2026-01-01T00:20:00Z"), List.of(pod("web-1", "2026-01-01T00:11:00Z"))))
                .contains(Instant.parse("2026-01-01T00:20:00Z"));
    }

    @Test
    void aForgottenServiceCountsAsNewAgain() {
        tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:11:00Z")));
        tracker.forget("default/web");

        assertThat(tracker.compute(service(CREATED), List.of(pod("web-1", "2026-01-01T00:11:00Z")))).contains(Instant.parse(CREATED));
    }
}
