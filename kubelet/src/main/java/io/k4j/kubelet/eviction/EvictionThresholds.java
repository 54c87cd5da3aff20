package io.k4j.kubelet.eviction;

import io.k4j.api.quantity.Quantity;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Parses upstream's {@code --eviction-hard} syntax: comma-separated {@code <signal><<value>} statements, the value a
 * quantity or a percentage of capacity, e.g. {@code memory.available<100Mi,nodefs.available<10%}. Giving the flag
 * replaces all of upstream's defaults, as upstream. Stateless and thread-safe.
 */
public final class EvictionThresholds {
    /** Upstream's default hard thresholds on Linux. */
    public static final String DEFAULT_HARD = "memory.available<100Mi,nodefs.available<10%,imagefs.available<15%,nodefs.inodesFree<5%";

    private EvictionThresholds() {}

    /**
     * @throws IllegalArgumentException with upstream's message when a statement is malformed or names an unknown signal
     */
    public static List<Threshold> parse(String flag) {
        List<Threshold> thresholds = new ArrayList<>();
        Set<Signal> seen = EnumSet.noneOf(Signal.class);
        for (String statement : flag.split(",")) {
            String trimmed = statement.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int operator = trimmed.indexOf('<');
            if (operator <= 0) {
                throw new IllegalArgumentException("invalid eviction threshold \"" + trimmed
                        + "\": expected <signal><<quantity or percentage>, e.g. memory.available<100Mi");
            }
            String signalName = trimmed.substring(0, operator).trim();
            Signal signal = Signal.of(signalName)
                    .orElseThrow(() -> new IllegalArgumentException("unsupported eviction signal " + signalName));
            if (!seen.add(signal)) {
                throw new IllegalArgumentException("found duplicate eviction threshold for signal " + signalName);
            }
            parseValue(signal, trimmed.substring(operator + 1).trim()).ifPresent(thresholds::add);
        }
        return List.copyOf(thresholds);
    }

    private static Optional<Threshold> parseValue(Signal signal, String value) {
        if (value.endsWith("%")) {
            double percentage;
            try {
                percentage = Double.parseDouble(value.substring(0, value.length() - 1));
            }
            catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid eviction threshold value " + value + " for "
                        + signal.signalName());
            }
            if (percentage < 0 || percentage > 100) {
                throw new IllegalArgumentException("eviction percentage threshold " + signal.signalName()
                        + " must be >= 0% and <= 100%: " + value);
            }
            // As upstream, 0% turns the threshold off.
            return percentage == 0 ? Optional.empty()
                    : Optional.of(new Threshold(signal, new Threshold.Percentage(percentage / 100)));
        }
        Quantity quantity;
        try {
            quantity = Quantity.parse(value);
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid eviction threshold value " + value + " for "
                    + signal.signalName() + ": " + e.getMessage());
        }
        if (quantity.signum() < 0) {
            throw new IllegalArgumentException("eviction threshold " + signal.signalName() + " must be positive: " + value);
        }
        return Optional.of(new Threshold(signal, new Threshold.Absolute(quantity)));
    }
}
