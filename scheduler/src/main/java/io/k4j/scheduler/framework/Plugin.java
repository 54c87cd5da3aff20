package io.k4j.scheduler.framework;

/**
 * A scheduling plugin. A plugin implements the extension-point interfaces it takes part in (for example
 * {@link FilterPlugin} and {@link ScorePlugin}); the framework calls each implemented point in configured order.
 * Plugins keep no per-pod state in fields (that goes into {@link CycleState}) and must be thread-safe, since Filter
 * and Score run in parallel over nodes.
 */
public interface Plugin {
    /** The registered name, for example {@code NodeResourcesFit}. */
    String name();
}
