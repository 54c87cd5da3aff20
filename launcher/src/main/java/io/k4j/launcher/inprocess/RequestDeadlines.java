package io.k4j.launcher.inprocess;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Fails in-process requests that outlive their timeout. {@code CompletableFuture.orTimeout} would schedule a task on
 * the common pool's timer for every request and cancel it when the answer comes, waking the timer's thread each time:
 * about three context switches per pod that the scheduler binds and the simulated nodes start. Here one thread looks
 * at the requests in flight every {@link #TICK} and sleeps while there are none, so a request that times out fails
 * up to one tick late, and one that is answered in time costs two map updates.
 *
 * <p>Thread-safe.
 */
final class RequestDeadlines {
    /** How often the requests in flight are checked; timeouts are seconds long, so a tenth of one is late enough. */
    static final Duration TICK = Duration.ofMillis(100);

    static final RequestDeadlines SHARED = new RequestDeadlines(TICK);

    private record Deadline(long expiresAtNanos, Duration timeout) {}

    private final Duration tick;
    private final Map<CompletableFuture<?>, Deadline> pending = new ConcurrentHashMap<>();
    private final Thread checker;
    /** Set by the checker before it sleeps with nothing pending, so that the next request wakes it. */
    private volatile boolean idle;

    RequestDeadlines(Duration tick) {
        this.tick = requireNonNull(tick, "tick is null");
        this.checker = Thread.ofPlatform().daemon(true).name("in-process-request-deadlines").start(this::checkForever);
    }

    /** Fails {@code response} with a {@link TimeoutException} if it is not complete {@code timeout} from now. */
    void add(CompletableFuture<?> response, Duration timeout) {
        pending.put(response, new Deadline(System.nanoTime() + timeout.toNanos(), timeout));
        response.whenComplete((answer, failure) -> pending.remove(response));
        if (idle) {
            LockSupport.unpark(checker);
        }
    }

    /** Requests whose deadline has not passed and that have no answer yet. */
    int pending() {
        return pending.size();
    }

    private void checkForever() {
        while (true) {
            if (pending.isEmpty()) {
                idle = true;
                // Checked again after the flag is visible: a request added in between has seen it and unparks.
                if (pending.isEmpty()) {
                    LockSupport.park(this);
                }
                idle = false;
                continue;
            }
            LockSupport.parkNanos(this, tick.toNanos());
            expire(System.nanoTime());
        }
    }

    private void expire(long nowNanos) {
        pending.forEach((response, deadline) -> {
            if (nowNanos - deadline.expiresAtNanos() >= 0) {
                pending.remove(response);
                response.completeExceptionally(new TimeoutException("no answer within " + deadline.timeout().toMillis() + " ms"));
            }
        });
    }
}
