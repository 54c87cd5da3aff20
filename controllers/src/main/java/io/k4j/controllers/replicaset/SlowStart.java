package io.k4j.controllers.replicaset;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * Upstream's {@code slowStartBatch}: runs an action {@code count} times in batches that double in size (1, 2, 4, …),
 * each batch in parallel, and stops after the first batch with a failure. A controller whose creates all fail (a
 * quota, an admission webhook) thus sends one request, not hundreds. Stateless and thread-safe.
 */
public final class SlowStart {
    private SlowStart() {}

    /** How many actions succeeded, and the first failure if a batch failed. */
    public record Result(int successes, Optional<KubernetesClientException> error) {
        public Result {
            requireNonNull(error, "error is null");
        }
    }

    /**
     * Runs {@code action} (given the call's index) up to {@code count} times.
     *
     * @param action throws {@link KubernetesClientException} to report a failure
     */
    public static Result run(int count, int initialBatchSize, IntConsumer action) {
        int remaining = count;
        int successes = 0;
        int index = 0;
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int batchSize = Math.min(remaining, initialBatchSize); batchSize > 0; batchSize = Math.min(2 * batchSize, remaining)) {
                List<Future<?>> batch = new ArrayList<>();
                for (int call = 0; call < batchSize; call++) {
                    int callIndex = index++;
                    batch.add(executor.submit(() -> action.accept(callIndex)));
                }
                KubernetesClientException firstError = null;
                for (Future<?> future : batch) {
                    try {
                        future.get();
                        successes++;
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof KubernetesClientException clientError) {
                            if (firstError == null) {
                                firstError = clientError;
                            }
                        } else if (e.getCause() instanceof RuntimeException runtime) {
                            throw runtime;
                        } else {
                            throw new IllegalStateException(e.getCause());
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted during a slow-start batch", e);
                    }
                }
                if (firstError != null) {
                    return new Result(successes, Optional.of(firstError));
                }
                remaining -= batchSize;
            }
        }
        return new Result(successes, Optional.empty());
    }
}
