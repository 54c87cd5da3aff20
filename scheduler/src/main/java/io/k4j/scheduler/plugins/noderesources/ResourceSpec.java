package io.k4j.scheduler.plugins.noderesources;

import static java.util.Objects.requireNonNull;

/**
 * A resource that scoring looks at and its weight.
 *
 * @param name the API resource name ({@code cpu}, {@code memory}, an extended resource)
 * @param weight 1..100
 */
public record ResourceSpec(String name, int weight) {
    public ResourceSpec {
        requireNonNull(name, "name is null");
    }
}
