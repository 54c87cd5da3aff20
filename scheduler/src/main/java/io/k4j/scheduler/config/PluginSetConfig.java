package io.k4j.scheduler.config;

import java.util.List;

/**
 * One extension point's {@code enabled} and {@code disabled} lists.
 *
 * @param enabled plugins to add, in order
 * @param disabled plugins to remove from the defaults
 */
public record PluginSetConfig(List<PluginEntry> enabled, List<PluginEntry> disabled) {
    public static final PluginSetConfig EMPTY = new PluginSetConfig(List.of(), List.of());

    public PluginSetConfig {
        enabled = List.copyOf(enabled);
        disabled = List.copyOf(disabled);
    }

    public boolean isDisabled(String name) {
        return disabled.stream().anyMatch(entry -> entry.name().equals(name) || entry.name().equals("*"));
    }
}
