package io.k4j.scheduler.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock tests move by hand. Thread-safe. */
public final class MutableClock implements InstantSource {
    private volatile Instant now;

    public MutableClock(Instant start) {
        this.now = start;
    }

    @Override
    public Instant instant() {
        return now;
    }

    public synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }
}
