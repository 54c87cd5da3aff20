package io.k4j.kubelet.prober;

import java.time.Duration;

/** Go's {@code time.Duration} formatting for whole seconds ({@code 1s}, {@code 1m30s}), as upstream's messages show it. */
final class GoDurations {
    private GoDurations() {}

    static String format(Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds == 0) {
            long millis = duration.toMillis();
            return millis == 0 ? "0s" : millis + "ms";
        }
        long hours = seconds / 3600;
        long minutes = seconds % 3600 / 60;
        long rest = seconds % 60;
        if (hours > 0) {
            return hours + "h" + minutes + "m" + rest + "s";
        }
        if (minutes > 0) {
            return minutes + "m" + rest + "s";
        }
        return rest + "s";
    }
}
