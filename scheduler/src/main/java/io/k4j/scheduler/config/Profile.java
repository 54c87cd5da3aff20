package io.k4j.scheduler.config;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One scheduling profile of a {@link KubeSchedulerConfiguration}.
 *
 * @param schedulerName the {@code spec.schedulerName} of the pods this profile schedules
 * @param percentageOfNodesToScore the profile's override, 0 for the global value
 * @param multiPoint plugins enabled/disabled at every extension point they implement
 * @param extensionPoints plugins enabled/disabled per extension point
 * @param pluginConfig the {@code args} per plugin name
 */
public record Profile(String schedulerName, int percentageOfNodesToScore, PluginSetConfig multiPoint,
        Map<ExtensionPoint, PluginSetConfig> extensionPoints, Map<String, JsonNode> pluginConfig) {
    public Profile {
        requireNonNull(schedulerName, "schedulerName is null");
        requireNonNull(multiPoint, "multiPoint is null");
        extensionPoints = Map.copyOf(extensionPoints);
        pluginConfig = Map.copyOf(pluginConfig);
    }

    public PluginSetConfig extensionPoint(ExtensionPoint point) {
        return extensionPoints.getOrDefault(point, PluginSetConfig.EMPTY);
    }
}
