package io.k4j.apiserver.registry.groups;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.registry.generic.HumanDuration;
import java.time.Instant;
import java.time.InstantSource;

/** Age cells of printed tables against an injected clock; the formatting is {@link HumanDuration}'s. Thread-safe. */
public final class Ages {
    private final InstantSource clock;

    public Ages(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Elapsed time since the RFC 3339 timestamp, or {@code <unknown>} when it is absent or unreadable. */
    public String since(String timestamp) {
        return HumanDuration.since(timestamp, clock.instant());
    }

    public Instant now() {
        return clock.instant();
    }
}
