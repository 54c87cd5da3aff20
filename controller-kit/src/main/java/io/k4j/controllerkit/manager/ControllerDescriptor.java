package io.k4j.controllerkit.manager;

import static java.util.Objects.requireNonNull;

import java.util.function.Function;

/**
 * A controller the manager knows by name, as upstream's controller descriptors.
 *
 * @param name the name {@code --controllers} uses, upstream's where one exists (e.g. {@code replicaset})
 * @param enabledByDefault whether {@code *} includes it
 * @param workers how many workers it runs (upstream's {@code --concurrent-*-syncs} defaults)
 * @param factory builds it; it registers its informers there
 */
public record ControllerDescriptor(String name, boolean enabledByDefault, int workers, Function<ControllerContext, Controller> factory) {
    public ControllerDescriptor {
        requireNonNull(name, "name is null");
        requireNonNull(factory, "factory is null");
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be positive: " + workers);
        }
    }
}
