package io.k4j.controllerkit.pods;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Pod predicates every controller shares, with upstream's definitions ({@code podutil}, {@code controller.IsPodActive}). */
public final class Pods {
    private Pods() {}

    /** Not finished and not being deleted: upstream's {@code IsPodActive}. */
    public static boolean isActive(Pod pod) {
        String phase = phase(pod);
        return !"Succeeded".equals(phase) && !"Failed".equals(phase) && pod.getMetadata().getDeletionTimestamp() == null;
    }

    public static boolean isTerminating(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null;
    }

    public static String phase(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
    }

    public static boolean isScheduled(Pod pod) {
        return pod.getSpec() != null && pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
    }

    public static Optional<PodCondition> condition(Pod pod, String type) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return pod.getStatus().getConditions().stream().filter(condition -> type.equals(condition.getType())).findFirst();
    }

    /** The Ready condition is True. */
    public static boolean isReady(Pod pod) {
        return condition(pod, "Ready").map(condition -> "True".equals(condition.getStatus())).orElse(false);
    }

    /** Ready for at least {@code minReadySeconds} at {@code now}: upstream's {@code IsPodAvailable}. */
    public static boolean isAvailable(Pod pod, int minReadySeconds, Instant now) {
        Optional<PodCondition> ready = condition(pod, "Ready").filter(condition -> "True".equals(condition.getStatus()));
        if (ready.isEmpty()) {
            return false;
        }
        if (minReadySeconds == 0) {
            return true;
        }
        String since = ready.get().getLastTransitionTime();
        if (since == null || since.isEmpty()) {
            return false;
        }
        return !Instant.parse(since).plus(Duration.ofSeconds(minReadySeconds)).isAfter(now);
    }
}
