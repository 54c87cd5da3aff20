package io.k4j.scheduler.framework;

import com.fasterxml.jackson.databind.JsonNode;

/** Creates a plugin from its {@code pluginConfig} args (null when none were given) and its profile's handle. */
@FunctionalInterface
public interface PluginFactory {
    /**
     * @throws IllegalArgumentException when the args are invalid; the message names the field
     */
    Plugin create(JsonNode args, FrameworkHandle handle);
}
