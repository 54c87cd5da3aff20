package io.k4j.launcher.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InProcessTaskExecutorTest {
    private final KubernetesClientBuilder.ExecutorSupplier supplier = InProcessTaskExecutor.supplier();
    private final Executor executor = supplier.get();

    @AfterEach
    void shutDown() {
        supplier.onClose(executor);
    }

    @Test
    void runsTasksOnThePoolOutsideAHandOver() throws Exception {
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        executor.execute(() -> ranOn.complete(Thread.currentThread()));
        assertThat(ranOn.get(10, TimeUnit.SECONDS)).isNotSameAs(Thread.currentThread());
    }

    @Test
    void runsTheFirstTwoNestedTasksOfAHandOverOnTheDeliveringThread() throws Exception {
        Thread delivering = Thread.currentThread();
        CompletableFuture<Thread> decoding = new CompletableFuture<>();
        CompletableFuture<Thread> handingToWatcher = new CompletableFuture<>();
        CompletableFuture<Thread> handlers = new CompletableFuture<>();
        InProcessTaskExecutor.beginHandOver();
        try {
            executor.execute(() -> {
                decoding.complete(Thread.currentThread());
                executor.execute(() -> {
                    handingToWatcher.complete(Thread.currentThread());
                    executor.execute(() -> handlers.complete(Thread.currentThread()));
                });
            });
        } finally {
            InProcessTaskExecutor.endHandOver();
        }
        assertThat(decoding.getNow(null)).isSameAs(delivering);
        assertThat(handingToWatcher.getNow(null)).isSameAs(delivering);
        assertThat(handlers.get(10, TimeUnit.SECONDS)).isNotSameAs(delivering);
    }

    @Test
    void endsTheHandOverForLaterTasks() throws Exception {
        InProcessTaskExecutor.beginHandOver();
        InProcessTaskExecutor.endHandOver();
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        executor.execute(() -> ranOn.complete(Thread.currentThread()));
        assertThat(ranOn.get(10, TimeUnit.SECONDS)).isNotSameAs(Thread.currentThread());
    }
}
