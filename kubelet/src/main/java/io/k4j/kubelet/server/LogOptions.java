package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How to read a container's log (upstream's {@code PodLogOptions} as the kubelet applies them).
 *
 * @param follow keep streaming new lines until the container stops
 * @param timestamps prefix each line with its RFC 3339 timestamp and a space
 * @param tailLines only the last lines
 * @param since only lines written at or after this instant
 * @param limitBytes stop after this many bytes of output
 */
public record LogOptions(boolean follow, boolean timestamps, OptionalLong tailLines, Optional<Instant> since, OptionalLong limitBytes) {
    public static final LogOptions ALL = new LogOptions(false, false, OptionalLong.empty(), Optional.empty(), OptionalLong.empty());

    public LogOptions {
        requireNonNull(tailLines, "tailLines is null");
        requireNonNull(since, "since is null");
        requireNonNull(limitBytes, "limitBytes is null");
    }
}
