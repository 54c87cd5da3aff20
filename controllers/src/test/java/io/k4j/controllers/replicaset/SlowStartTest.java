package io.k4j.controllers.replicaset;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SlowStartTest {
    @Test
    void runsEverythingInDoublingBatchesWhenNothingFails() {
        AtomicInteger calls = new AtomicInteger();
        SlowStart.Result result = SlowStart.run(10, 1, index -> calls.incrementAndGet());
        assertThat(result.successes()).isEqualTo(10);
        assertThat(result.error()).isEmpty();
        assertThat(calls).hasValue(10);
    }

    @Test
    void stopsAfterTheBatchWithTheFirstFailure() {
        AtomicInteger calls = new AtomicInteger();
        // Calls 0 | 1 2 | 3 4 5 6 | ...: call 4 fails, so the batch of four finishes and nothing more runs.
        SlowStart.Result result = SlowStart.run(20, 1, index -> {
            calls.incrementAndGet();
            if (index == 4) {
                throw new KubernetesClientException("quota");
            }
        });
        assertThat(calls).hasValue(7);
        assertThat(result.successes()).isEqualTo(6);
        assertThat(result.error()).get().extracting(Throwable::getMessage).isEqualTo("quota");
    }
}
