package io.k4j.controllerkit.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkQueueTest {
    private final WorkQueue<String> queue = new WorkQueue<>("test",
            new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(10), Duration.ofSeconds(1)));

    @AfterEach
    void shutDown() {
        queue.shutDown();
    }

    @Test
    void itemAddedTwiceBeforeProcessingIsProcessedOnce() throws Exception {
        queue.add("a");
        queue.add("b");
        queue.add("a");

        assertThat(queue.length()).isEqualTo(2);
        assertThat(queue.get()).contains("a");
        assertThat(queue.get()).contains("b");
        assertThat(queue.length()).isZero();
    }

    @Test
    void itemAddedWhileProcessingIsQueuedAgainOnlyAfterDone() throws Exception {
        queue.add("a");
        String taken = queue.get().orElseThrow();

        queue.add("a");
        assertThat(queue.length()).as("a second worker must not get an item in process").isZero();

        queue.done(taken);
        assertThat(queue.length()).isEqualTo(1);
        assertThat(queue.get()).contains("a");
    }

    @Test
    void addAfterDelaysTheItemAndKeepsTheEarliestDeadline() throws Exception {
        queue.addAfter("late", Duration.ofHours(1));
        queue.addAfter("late", Duration.ofMillis(20));
        queue.addAfter("late", Duration.ofHours(2));

        assertThat(queue.length()).isZero();
        await().atMost(5, TimeUnit.SECONDS).until(() -> queue.length() == 1);
        assertThat(queue.get()).contains("late");
    }

    @Test
    void rateLimitedRequeuesBackOffAndForgetResets() {
        queue.addRateLimited("a");
        queue.addRateLimited("a");
        assertThat(queue.numRequeues("a")).isEqualTo(2);

        queue.forget("a");
        assertThat(queue.numRequeues("a")).isZero();
    }

    @Test
    void shutDownWakesWaitingWorkers() throws Exception {
        CompletableFuture<Optional<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return queue.get();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        queue.shutDown();

        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
        queue.add("ignored");
        assertThat(queue.length()).isZero();
    }

    @Test
    void workersRetryAFailingKeyWithoutStallingOthers() throws Exception {
        java.util.List<String> synced = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger failuresLeft = new java.util.concurrent.atomic.AtomicInteger(3);
        try (Workers workers = Workers.start(queue, 1, key -> {
            if (key.equals("bad") && failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("not yet");
            }
            synced.add(key);
        })) {
            queue.add("bad");
            queue.add("good");

            await().atMost(10, TimeUnit.SECONDS).until(() -> synced.contains("bad"));
            assertThat(synced).startsWith("good");
            assertThat(queue.numRequeues("bad")).as("success forgets the backoff").isZero();
        }
    }
}
