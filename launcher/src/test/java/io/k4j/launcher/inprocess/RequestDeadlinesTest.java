package io.k4j.launcher.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class RequestDeadlinesTest {
    private final RequestDeadlines deadlines = new RequestDeadlines(Duration.ofMillis(10));

    @Test
    void aRequestWithoutAnAnswerFailsWithATimeoutOnceItsDeadlinePasses() {
        CompletableFuture<String> response = new CompletableFuture<>();
        long start = System.nanoTime();

        deadlines.add(response, Duration.ofMillis(200));

        await().atMost(Duration.ofSeconds(5)).until(response::isDone);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(response).failsWithin(Duration.ZERO).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class)
                .withMessageContaining("no answer within 200 ms");
        assertThat(deadlines.pending()).isZero();
    }

    @Test
    void anAnsweredRequestIsForgottenAtOnceAndKeepsItsAnswer() {
        CompletableFuture<String> response = new CompletableFuture<>();
        deadlines.add(response, Duration.ofMillis(50));
        assertThat(deadlines.pending()).isEqualTo(1);

        response.complete("answer");

        assertThat(deadlines.pending()).isZero();
        assertThat(response).isCompletedWithValue("answer");
    }

    @Test
    void theCheckerWakesForARequestAfterItHadNothingToWatch() {
        CompletableFuture<String> first = new CompletableFuture<>();
        deadlines.add(first, Duration.ofMillis(20));
        await().atMost(Duration.ofSeconds(5)).until(first::isDone);

        CompletableFuture<String> later = new CompletableFuture<>();
        deadlines.add(later, Duration.ofMillis(20));

        await().atMost(Duration.ofSeconds(5)).until(later::isDone);
        assertThat(later).isCompletedExceptionally();
    }
}
