package io.k4j.launcher.images;

/**
 * Where image and registry work reports what it is doing, one line per step: the terminal for {@code k4j images},
 * the log for {@code k4j server}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Progress {
    void report(String message);

    /** Reports nothing. */
    static Progress silent() {
        return message -> {};
    }
}
