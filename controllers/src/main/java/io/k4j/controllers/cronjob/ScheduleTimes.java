package io.k4j.controllers.cronjob;

import static java.util.Objects.requireNonNull;

import io.k4j.api.cron.CronSchedule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * Which scheduled time a CronJob should run now, as upstream's {@code mostRecentScheduleTime}: the latest activation
 * after the last scheduled time (or creation) that is not later than now, counting how many were missed. With
 * {@code startingDeadlineSeconds}, activations older than the deadline are not considered. Stateless.
 */
final class ScheduleTimes {
    /** More missed activations than this make upstream warn with {@code TooManyMissedTimes}. */
    static final int MISSED_WARNING_THRESHOLD = 100;
    /** Walking activations one by one stops here; further ones are estimated from the interval, as upstream does. */
    private static final int WALK_LIMIT = 1_000;

    /**
     * @param mostRecent the activation to run now, if any is due
     * @param missed how many activations were due since the earliest time (1 when only the most recent one)
     */
    record Due(Optional<ZonedDateTime> mostRecent, long missed) {
        Due {
            requireNonNull(mostRecent, "mostRecent is null");
        }
    }

    private ScheduleTimes() {}

    /**
     * @param earliest the last scheduled time, or the CronJob's creation when it never ran
     * @param startingDeadlineSeconds {@code spec.startingDeadlineSeconds}, if set
     */
    static Due mostRecent(CronSchedule schedule, ZoneId zone, Instant earliest, Optional<Long> startingDeadlineSeconds, Instant now) {
        Instant from = earliest;
        if (startingDeadlineSeconds.isPresent()) {
            Instant deadline = now.minusSeconds(startingDeadlineSeconds.get());
            if (deadline.isAfter(from)) {
                from = deadline;
            }
        }
        Optional<ZonedDateTime> first = schedule.next(from.atZone(zone));
        if (first.isEmpty() || first.get().toInstant().isAfter(now)) {
            return new Due(Optional.empty(), 0);
        }
        ZonedDateTime mostRecent = first.get();
        long missed = 1;
        for (int step = 0; step < WALK_LIMIT; step++) {
            Optional<ZonedDateTime> next = schedule.next(mostRecent);
            if (next.isEmpty() || next.get().toInstant().isAfter(now)) {
                return new Due(Optional.of(mostRecent), missed);
            }
            mostRecent = next.get();
            missed++;
        }
        // Very many activations were missed: estimate their number from the interval and jump close to now.
        Optional<ZonedDateTime> second = schedule.next(first.get());
        long interval = Math.max(1, Duration.between(first.get(), second.orElse(first.get().plusSeconds(1))).getSeconds());
        long elapsed = Duration.between(first.get().toInstant(), now).getSeconds();
        missed = elapsed / interval + 1;
        ZonedDateTime candidate = now.minusSeconds(2 * interval).atZone(zone);
        Optional<ZonedDateTime> walk = schedule.next(candidate);
        while (walk.isPresent() && !walk.get().toInstant().isAfter(now)) {
            mostRecent = walk.get();
            walk = schedule.next(walk.get());
        }
        return new Due(Optional.of(mostRecent), missed);
    }

    /** The first activation strictly after {@code now}: when the controller must look at the CronJob again. */
    static Optional<ZonedDateTime> next(CronSchedule schedule, ZoneId zone, Instant now) {
        return schedule.next(now.atZone(zone));
    }
}
