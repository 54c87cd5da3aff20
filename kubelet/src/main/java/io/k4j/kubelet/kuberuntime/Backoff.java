package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-key exponential backoff as upstream's {@code flowcontrol.Backoff}: each failure ({@link #next}) doubles the
 * delay from {@code initial} up to {@code max}; an entry whose last failure is older than twice {@code max} starts
 * over (so a container that ran ten minutes is restarted after 10 s again). Used for CrashLoopBackOff (10 s to 5 min)
 * and ImagePullBackOff. Thread-safe.
 */
public final class Backoff {
    private record Entry(Duration delay, Instant lastUpdate) {}

    private final InstantSource clock;
    private final Duration initial;
    private final Duration max;
    private final Map<String, Entry> entries = new HashMap<>();

    public Backoff(InstantSource clock, Duration initial, Duration max) {
        this.clock = requireNonNull(clock, "clock is null");
        this.initial = requireNonNull(initial, "initial is null");
        this.max = requireNonNull(max, "max is null");
    }

    /** Upstream's container restart backoff: 10 s doubling to 5 min. */
    public static Backoff containerRestarts(InstantSource clock) {
        return new Backoff(clock, Duration.ofSeconds(10), Duration.ofMinutes(5));
    }

    /** Records a failure at {@code eventTime} and returns the delay now in force. */
    public synchronized Duration next(String key, Instant eventTime) {
        Entry entry = entries.get(key);
        Duration delay;
        if (entry == null || expired(eventTime, entry.lastUpdate())) {
            delay = initial;
        }
        else {
            delay = entry.delay().multipliedBy(2);
            if (delay.compareTo(max) > 0) {
                delay = max;
            }
        }
        entries.put(key, new Entry(delay, eventTime));
        return delay;
    }

    /** Whether the delay of the failure at {@code eventTime} has not passed yet. */
    public synchronized boolean isInBackOffSince(String key, Instant eventTime) {
        Entry entry = entries.get(key);
        if (entry == null || expired(eventTime, entry.lastUpdate())) {
            return false;
        }
        return Duration.between(eventTime, clock.instant()).compareTo(entry.delay()) < 0;
    }

    /** Whether the delay since the last recorded failure has not passed yet. */
    public synchronized boolean isInBackOffSinceUpdate(String key) {
        Entry entry = entries.get(key);
        if (entry == null) {
            return false;
        }
        Instant now = clock.instant();
        if (expired(now, entry.lastUpdate())) {
            return false;
        }
        return Duration.between(entry.lastUpdate(), now).compareTo(entry.delay()) < 0;
    }

    /** The delay in force for {@code key} (zero when none). */
    public synchronized Duration get(String key) {
        Entry entry = entries.get(key);
        return entry == null ? Duration.ZERO : entry.delay();
    }

    /** When the backoff of {@code key} ends, if it has one. */
    public synchronized Instant until(String key) {
        Entry entry = entries.get(key);
        return entry == null ? clock.instant() : entry.lastUpdate().plus(entry.delay());
    }

    public synchronized void reset(String key) {
        entries.remove(key);
    }

    /** Forgets every key that starts with {@code prefix} (a pod that is gone). */
    public synchronized void resetPrefix(String prefix) {
        entries.keySet().removeIf(key -> key.startsWith(prefix));
    }

    private boolean expired(Instant eventTime, Instant lastUpdate) {
        return Duration.between(lastUpdate, eventTime).compareTo(max.multipliedBy(2)) > 0;
    }

    /** A duration as Go prints it ({@code 10s}, {@code 1m20s}, {@code 5m0s}), for upstream's messages. */
    public static String goDuration(Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds < 60) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 60) {
            return minutes + "m" + (seconds % 60) + "s";
        }
        return (minutes / 60) + "h" + (minutes % 60) + "m" + (seconds % 60) + "s";
    }
}
