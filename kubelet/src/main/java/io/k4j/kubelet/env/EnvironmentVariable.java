package io.k4j.kubelet.env;

import static java.util.Objects.requireNonNull;

/** One environment variable of a container, as CRI's {@code KeyValue}. */
public record EnvironmentVariable(String name, String value) {
    public EnvironmentVariable {
        requireNonNull(name, "name is null");
        requireNonNull(value, "value is null");
    }
}
