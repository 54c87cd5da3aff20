package io.k4j.kubelet.images;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * When images are garbage collected, as upstream's ImageGCPolicy: once the image file system is
 * {@code highThresholdPercent} full, unused images are deleted until it is at most {@code lowThresholdPercent} full;
 * an image is never deleted before it has been known for {@code minimumAge}. Immutable.
 */
public record ImageGcPolicy(int highThresholdPercent, int lowThresholdPercent, Duration minimumAge) {
    /** Upstream's defaults: 85 %, 80 %, 2 minutes. */
    public static final ImageGcPolicy DEFAULT = new ImageGcPolicy(85, 80, Duration.ofMinutes(2));

    /** @throws IllegalArgumentException with upstream's messages */
    public ImageGcPolicy {
        requireNonNull(minimumAge, "minimumAge is null");
        if (highThresholdPercent < 0 || highThresholdPercent > 100) {
            throw new IllegalArgumentException("invalid HighThresholdPercent " + highThresholdPercent
                    + ", must be in range [0-100]");
        }
        if (lowThresholdPercent < 0 || lowThresholdPercent > 100) {
            throw new IllegalArgumentException("invalid LowThresholdPercent " + lowThresholdPercent
                    + ", must be in range [0-100]");
        }
        if (lowThresholdPercent > highThresholdPercent) {
            throw new IllegalArgumentException("LowThresholdPercent " + lowThresholdPercent
                    + " can not be higher than HighThresholdPercent " + highThresholdPercent);
        }
        if (minimumAge.isNegative()) {
            throw new IllegalArgumentException("minimumAge must not be negative: " + minimumAge);
        }
    }
}
