package io.k4j.scheduler.config;

import static java.util.Objects.requireNonNull;

/**
 * A plugin named in an extension point's {@code enabled} or {@code disabled} list.
 *
 * @param name the plugin name, {@code *} in a disabled list for all
 * @param weight the score weight, 0 when not given
 */
public record PluginEntry(String name, int weight) {
    public PluginEntry {
        requireNonNull(name, "name is null");
    }
}
