package io.k4j.kubelet.eviction;

import static java.util.Objects.requireNonNull;

import io.k4j.api.quantity.Quantity;

/**
 * One eviction threshold: the signal is met when what is available falls below the value. Immutable.
 *
 * @param signal what is observed
 * @param value an absolute quantity or a percentage of capacity
 */
public record Threshold(Signal signal, Value value) {
    public Threshold {
        requireNonNull(signal, "signal is null");
        requireNonNull(value, "value is null");
    }

    /** A threshold's value. */
    public sealed interface Value permits Absolute, Percentage {}

    /** An absolute amount, in the signal's unit (bytes, or inodes). */
    public record Absolute(Quantity quantity) implements Value {
        public Absolute {
            requireNonNull(quantity, "quantity is null");
        }
    }

    /** A share of the capacity, from 0 to 1. */
    public record Percentage(double fraction) implements Value {
        public Percentage {
            if (fraction < 0 || fraction > 1) {
                throw new IllegalArgumentException("fraction must be between 0 and 1: " + fraction);
            }
        }
    }

    /** The threshold as a quantity for a signal of this capacity, as upstream's GetThresholdQuantity. */
    public Quantity quantity(long capacity) {
        return switch (value) {
            case Absolute absolute -> absolute.quantity();
            case Percentage percentage -> Quantity.of((long) (capacity * percentage.fraction()), Quantity.Format.BINARY_SI);
        };
    }

    /** Whether {@code available} of {@code capacity} is below the threshold. */
    public boolean isMet(long available, long capacity) {
        return available < quantity(capacity).value();
    }
}
