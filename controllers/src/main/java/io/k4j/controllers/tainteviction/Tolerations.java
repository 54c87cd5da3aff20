package io.k4j.controllers.tainteviction;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** How long a pod may stay on a node with NoExecute taints, as upstream's taint eviction decides it. */
final class Tolerations {
    private Tolerations() {}

    /** Upstream's {@code Toleration.ToleratesTaint}. */
    static boolean tolerates(Toleration toleration, Taint taint) {
        if (toleration.getEffect() != null && !toleration.getEffect().isEmpty() && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        String key = toleration.getKey() == null ? "" : toleration.getKey();
        String operator = toleration.getOperator() == null || toleration.getOperator().isEmpty() ? "Equal" : toleration.getOperator();
        if (!key.isEmpty() && !key.equals(taint.getKey())) {
            return false;
        }
        return switch (operator) {
            case "Exists" -> true;
            case "Equal" -> !key.isEmpty() && nullToEmpty(toleration.getValue()).equals(nullToEmpty(taint.getValue()));
            default -> false;
        };
    }

    /**
     * When the pod must go: empty when it may stay for ever (no NoExecute taint, or every one tolerated without
     * tolerationSeconds), zero when a taint is not tolerated, else the shortest tolerationSeconds of the tolerations
     * in use (negative values count as zero, as upstream).
     */
    static Optional<Duration> evictionDelay(List<Taint> noExecuteTaints, List<Toleration> tolerations) {
        if (noExecuteTaints.isEmpty()) {
            return Optional.empty();
        }
        Duration shortest = null;
        for (Taint taint : noExecuteTaints) {
            boolean tolerated = false;
            for (Toleration toleration : tolerations) {
                if (!tolerates(toleration, taint)) {
                    continue;
                }
                tolerated = true;
                if (toleration.getTolerationSeconds() != null) {
                    Duration seconds = Duration.ofSeconds(Math.max(0, toleration.getTolerationSeconds()));
                    shortest = shortest == null || seconds.compareTo(shortest) < 0 ? seconds : shortest;
                }
            }
            if (!tolerated) {
                return Optional.of(Duration.ZERO);
            }
        }
        return Optional.ofNullable(shortest);
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
