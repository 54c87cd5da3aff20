package io.k4j.controllers.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DisruptionControllerTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final CacheImpl<PodDisruptionBudget> budgets = new CacheImpl<>();
    private final CacheImpl<Pod> pods = new CacheImpl<>();
    private final List<PodDisruptionBudgetStatus> written = new ArrayList<>();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final DisruptionController controller = new DisruptionController(new Lister<>(budgets), new Lister<>(pods),
            pod -> Optional.of(4), (budget, status) -> written.add(status), events, clock);

    @Test
    void minAvailableCountsReadyPods() {
        budgets.put(budget(new IntOrString(2), null));
        pods.put(pod("a", true));
        pods.put(pod("b", true));
        pods.put(pod("c", false));

        controller.sync("default/web");

        PodDisruptionBudgetStatus status = written.getLast();
        assertThat(status.getExpectedPods()).isEqualTo(3);
        assertThat(status.getCurrentHealthy()).isEqualTo(2);
        assertThat(status.getDesiredHealthy()).isEqualTo(2);
        assertThat(status.getDisruptionsAllowed()).isZero();
        assertThat(status.getConditions()).singleElement().satisfies(condition -> {
            assertThat(condition.getStatus()).isEqualTo("False");
            assertThat(condition.getReason()).isEqualTo("InsufficientPods");
        });
    }

    @Test
    void maxUnavailableScalesFromTheControllersReplicas() {
        budgets.put(budget(null, new IntOrString("25%")));
        for (String name : List.of("a", "b", "c", "d")) {
            pods.put(pod(name, true));
        }

        controller.sync("default/web");

        PodDisruptionBudgetStatus status = written.getLast();
        assertThat(status.getExpectedPods()).isEqualTo(4);
        assertThat(status.getDesiredHealthy()).isEqualTo(3);
        assertThat(status.getDisruptionsAllowed()).isEqualTo(1);
        assertThat(status.getConditions().getFirst().getReason()).isEqualTo("SufficientPods");
    }

    @Test
    void evictedPodsStopCountingUntilTheRecordExpires() {
        PodDisruptionBudget budget = budget(new IntOrString(1), null);
        budget.setStatus(new PodDisruptionBudgetStatus(null, 2, 1, Map.of("a", "2026-01-01T00:00:00Z"), 0, 2, 1L));
        budgets.put(budget);
        pods.put(pod("a", true));
        pods.put(pod("b", true));

        controller.sync("default/web");
        assertThat(written.getLast().getCurrentHealthy()).isEqualTo(1);
        assertThat(written.getLast().getDisruptedPods()).containsKey("a");

        clock.advance(DisruptionController.DELETION_TIMEOUT.plus(Duration.ofSeconds(1)));
        controller.sync("default/web");
        assertThat(written.getLast().getCurrentHealthy()).isEqualTo(2);
        assertThat(written.getLast().getDisruptedPods()).isNull();
    }

    @Test
    void percentagesRoundUp() {
        assertThat(DisruptionBudgets.scaled(new IntOrString("50%"), 3)).hasValue(2);
        assertThat(DisruptionBudgets.desiredHealthy(null, new IntOrString("34%"), 3)).isEqualTo(1);
        assertThat(DisruptionBudgets.scaled(new IntOrString("abc"), 3)).isEmpty();
    }

    private static PodDisruptionBudget budget(IntOrString minAvailable, IntOrString maxUnavailable) {
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName("web").withNamespace("default").withGeneration(1L).endMetadata()
                .withNewSpec().withMinAvailable(minAvailable).withMaxUnavailable(maxUnavailable)
                .withNewSelector().withMatchLabels(Map.of("app", "web")).endSelector().endSpec()
                .build();
    }

    private static Pod pod(String name, boolean ready) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withLabels(Map.of("app", "web"))
                .withOwnerReferences(new OwnerReference("apps/v1", true, true, "ReplicaSet", "web-1", "rs-uid")).endMetadata()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus()
                .build();
    }
}
