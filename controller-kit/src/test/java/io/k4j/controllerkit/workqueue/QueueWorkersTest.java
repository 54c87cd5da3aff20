package io.k4j.controllerkit.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QueueWorkersTest {
    private final WorkQueue<String> queue = new WorkQueue<>("queue-workers-test",
            new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1)));
    private final List<String> synced = new CopyOnWriteArrayList<>();

    @Test
    void syncsQueuedKeysUntilClosed() {
        try (QueueWorkers<String> workers = new QueueWorkers<>(queue, synced::add)) {
            workers.start(2);
            queue.add("a");
            queue.add("b");

            await().atMost(5, TimeUnit.SECONDS).until(() -> synced.size() == 2);
            assertThat(synced).containsExactlyInAnyOrder("a", "b");
        }
        assertThat(queue.isShuttingDown()).isTrue();
    }

    @Test
    void secondStartKeepsTheRunningWorkers() {
        try (QueueWorkers<String> workers = new QueueWorkers<>(queue, synced::add)) {
            workers.start(1);
            workers.start(3);

            assertThat(workerThreads()).isEqualTo(1);
        }
        await().atMost(10, TimeUnit.SECONDS).until(() -> workerThreads() == 0);
    }

    @Test
    void closeWithoutStartShutsTheQueueDown() {
        new QueueWorkers<>(queue, synced::add).close();

        assertThat(queue.isShuttingDown()).isTrue();
    }

    @Test
    void failedSyncIsRetried() {
        try (QueueWorkers<String> workers = new QueueWorkers<>(queue, key -> {
            synced.add(key);
            if (synced.size() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        })) {
            workers.start(1);
            queue.add("a");

            await().atMost(5, TimeUnit.SECONDS).until(() -> synced.size() == 2);
            assertThat(queue.numRequeues("a")).as("success forgets the backoff").isZero();
        }
    }

    @Test
    void requeuingAfterQueuesTheKeyAgainAfterTheReturnedDelay() {
        try (QueueWorkers<String> workers = QueueWorkers.requeuingAfter(queue, key -> {
            synced.add(key);
            return synced.size() == 1 ? Optional.of(Duration.ofMillis(20)) : Optional.empty();
        })) {
            workers.start(1);
            queue.add("due-later");

            await().atMost(5, TimeUnit.SECONDS).until(() -> synced.size() == 2);
            assertThat(synced).containsExactly("due-later", "due-later");
            assertThat(queue.length()).as("an empty delay does not requeue").isZero();
        }
    }

    private static long workerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("queue-workers-test-worker-"))
                .filter(Thread::isAlive)
                .count();
    }
}
