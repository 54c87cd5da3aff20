package io.k4j.controllers.disruption;

import io.fabric8.kubernetes.api.model.IntOrString;
import java.util.OptionalInt;

/** The arithmetic of a PodDisruptionBudget's status, as upstream's disruption controller does it. */
final class DisruptionBudgets {
    private DisruptionBudgets() {}

    /**
     * An integer, or a percentage of {@code total} rounded up (upstream's {@code GetScaledValueFromIntOrPercent} with
     * roundUp); empty when a string is not a percentage.
     */
    static OptionalInt scaled(IntOrString value, int total) {
        if (value.getIntVal() != null) {
            return OptionalInt.of(value.getIntVal());
        }
        String text = value.getStrVal();
        if (text == null || !text.endsWith("%")) {
            return OptionalInt.empty();
        }
        try {
            int percent = Integer.parseInt(text.substring(0, text.length() - 1));
            return OptionalInt.of((int) Math.ceil(percent * (double) total / 100));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /** Whether the expected pod count must come from the pods' controllers (else it is the number of pods). */
    static boolean needsControllerScale(IntOrString minAvailable, IntOrString maxUnavailable) {
        return maxUnavailable != null || (minAvailable != null && minAvailable.getIntVal() == null);
    }

    /**
     * desiredHealthy from the budget's spec and the expected pod count.
     *
     * @throws IllegalArgumentException when the budget's values cannot be read
     */
    static int desiredHealthy(IntOrString minAvailable, IntOrString maxUnavailable, int expectedCount) {
        if (maxUnavailable != null) {
            int unavailable = scaled(maxUnavailable, expectedCount)
                    .orElseThrow(() -> new IllegalArgumentException("invalid maxUnavailable " + maxUnavailable.getStrVal()));
            return Math.max(0, expectedCount - unavailable);
        }
        if (minAvailable != null) {
            return scaled(minAvailable, expectedCount)
                    .orElseThrow(() -> new IllegalArgumentException("invalid minAvailable " + minAvailable.getStrVal()));
        }
        return 0;
    }
}
