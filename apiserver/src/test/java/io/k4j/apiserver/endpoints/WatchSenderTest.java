package io.k4j.apiserver.endpoints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.k4j.apiserver.registry.generic.CachedObject;
import io.k4j.apiserver.registry.generic.WatchCache;
import io.k4j.apiserver.registry.generic.WatchItem;
import io.k4j.storage.KeyValue;
import io.k4j.storage.Lease;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatchSenderTest {
    private static final String PREFIX = "/registry/things/";
    private SqliteKeyValueStore storage;
    private WatchCache cache;

    @BeforeEach
    void start(@TempDir Path directory) {
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        cache = new WatchCache(PREFIX, storage, WatchSenderTest::decode, 100, 1_000);
        cache.start();
    }

    @AfterEach
    void stop() {
        cache.close();
        storage.close();
    }

    @Test
    void eventsQueuedWhileASendIsInFlightGoOutTogetherOnceItCompletes() throws Exception {
        HeldStream stream = new HeldStream();
        CompletableFuture<Void> served = serve(stream, Duration.ofMinutes(5));

        create("a");
        byte[] first = stream.awaitSend();
        create("b");
        create("c");
        assertThat(stream.sent).hasSize(1);
        stream.complete(null);
        byte[] second = stream.awaitSend();
        stream.complete(null);
        stream.clientGone();

        served.get(10, TimeUnit.SECONDS);
        assertThat(stream.sentTexts()).containsExactly("a\n", "b\nc\n");
        assertThat(List.of(first, second)).containsExactlyElementsOf(stream.sent);
    }

    @Test
    void sendsThatCompleteAtOnceGoOutOneAfterTheOtherInOrder() throws Exception {
        HeldStream stream = new HeldStream();
        stream.completeAtOnce = true;
        CompletableFuture<Void> served = serve(stream, Duration.ofMinutes(5));

        create("a");
        create("b");
        await().atMost(Duration.ofSeconds(10)).until(() -> stream.sent.size() == 2);
        stream.clientGone();

        served.get(10, TimeUnit.SECONDS);
        assertThat(stream.sentTexts()).containsExactly("a\n", "b\n");
    }

    @Test
    void aFailedSendEndsTheWatch() throws Exception {
        HeldStream stream = new HeldStream();
        CompletableFuture<Void> served = serve(stream, Duration.ofMinutes(5));

        create("a");
        stream.awaitSend();
        stream.complete(new IOException("stream reset"));

        assertEndedAndSendsNoMore(served, stream);
    }

    @Test
    void theDeadlineEndsTheWatchOnlyOnceTheSendInFlightCompleted() throws Exception {
        HeldStream stream = new HeldStream();
        CompletableFuture<Void> served = serve(stream, Duration.ofMillis(300));

        create("a");
        stream.awaitSend();
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(() -> !served.isDone());
        stream.complete(null);

        assertEndedAndSendsNoMore(served, stream);
    }

    @Test
    void aWatchTheCacheEndsSendsTheEventsBeforeTheEndAndReturns() throws Exception {
        HeldStream stream = new HeldStream();
        stream.completeAtOnce = true;
        CompletableFuture<Void> served = serve(stream, Duration.ofMinutes(5));

        create("a");
        await().atMost(Duration.ofSeconds(10)).until(() -> stream.sent.size() == 1);
        cache.close();

        served.get(10, TimeUnit.SECONDS);
        assertThat(stream.sentTexts()).containsExactly("a\n");
    }

    @Test
    void everyEventArrivesWhenSendsCompleteAtOnceOrLaterOnOtherThreads() throws Exception {
        int events = 2_000;
        ExecutorService completions = Executors.newFixedThreadPool(2);
        AtomicInteger sends = new AtomicInteger();
        List<String> received = new CopyOnWriteArrayList<>();
        HttpExchange.NonBlockingStream stream = new HttpExchange.NonBlockingStream() {
            @Override
            public void send(byte[] bytes, Consumer<Throwable> done) {
                received.addAll(List.of(new String(bytes, StandardCharsets.UTF_8).split("\n")));
                // Every third send completes on another thread, as Jetty completes a write that had to wait.
                if (sends.incrementAndGet() % 3 == 0) {
                    completions.execute(() -> done.accept(null));
                } else {
                    done.accept(null);
                }
            }

            @Override
            public void onClientGone(Consumer<Throwable> onFailure) {}
        };
        WatchCache.Watcher watcher = cache.watchFrom(cache.revision(), object -> true);
        WatchSender sender = new WatchSender(watcher, stream, item -> item instanceof WatchItem.Event event
                ? (event.object().name() + "\n").getBytes(StandardCharsets.UTF_8)
                : null);
        Thread owner = Thread.ofVirtual().start(() -> {
            try {
                sender.serve(new WatchSchedule(System.nanoTime() + Duration.ofSeconds(60).toNanos(), null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            for (int i = 0; i < events; i++) {
                storage.create(PREFIX + "default/e" + i, new byte[] {'x'}, Lease.NONE);
            }

            await().atMost(Duration.ofSeconds(20)).until(() -> received.size() == events);
            assertThat(received).containsExactlyElementsOf(IntStream.range(0, events).mapToObj(i -> "e" + i).toList());
        } finally {
            owner.interrupt();
            watcher.close();
            completions.shutdownNow();
        }
    }

    /** Waits for serve to return, then checks that a later change is not sent. */
    private void assertEndedAndSendsNoMore(CompletableFuture<Void> served, HeldStream stream) throws Exception {
        served.get(10, TimeUnit.SECONDS);
        int sent = stream.sent.size();
        create("later");
        assertThat(stream.sent).hasSize(sent);
    }

    /** Serves a watch from the cache's current revision on a thread of its own, until serve returns. */
    private CompletableFuture<Void> serve(HeldStream stream, Duration deadline) {
        WatchCache.Watcher watcher = cache.watchFrom(cache.revision(), object -> true);
        WatchSender sender = new WatchSender(watcher, stream, item -> item instanceof WatchItem.Event event
                ? (event.object().name() + "\n").getBytes(StandardCharsets.UTF_8)
                : null);
        CompletableFuture<Void> served = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                sender.serve(new WatchSchedule(System.nanoTime() + deadline.toNanos(), null));
                served.complete(null);
            } catch (Throwable e) {
                served.completeExceptionally(e);
            } finally {
                watcher.close();
            }
        });
        return served;
    }

    private void create(String name) {
        KeyValue written = storage.create(PREFIX + "default/" + name, name.getBytes(StandardCharsets.UTF_8), Lease.NONE);
        await().atMost(Duration.ofSeconds(10)).until(() -> cache.revision() >= written.modRevision());
    }

    private static CachedObject decode(KeyValue keyValue) {
        String name = keyValue.key().substring(keyValue.key().lastIndexOf('/') + 1);
        return new CachedObject(keyValue.key(), "default", name, keyValue.modRevision(), keyValue.value(), Map.of(), Map.of());
    }

    /** A stream whose sends complete when the test says, or at once; records what was sent. */
    private static final class HeldStream implements HttpExchange.NonBlockingStream {
        final List<byte[]> sent = new CopyOnWriteArrayList<>();
        private final LinkedBlockingQueue<byte[]> unseen = new LinkedBlockingQueue<>();
        private final LinkedBlockingQueue<Consumer<Throwable>> pending = new LinkedBlockingQueue<>();
        private final CompletableFuture<Consumer<Throwable>> gone = new CompletableFuture<>();
        volatile boolean completeAtOnce;

        @Override
        public void send(byte[] bytes, Consumer<Throwable> done) {
            assertThat(pending).as("a send while another is in flight").isEmpty();
            sent.add(bytes);
            unseen.add(bytes);
            if (completeAtOnce) {
                done.accept(null);
            } else {
                pending.add(done);
            }
        }

        @Override
        public void onClientGone(Consumer<Throwable> onFailure) {
            gone.complete(onFailure);
        }

        List<String> sentTexts() {
            return sent.stream().map(bytes -> new String(bytes, StandardCharsets.UTF_8)).toList();
        }

        byte[] awaitSend() throws InterruptedException {
            byte[] bytes = unseen.poll(10, TimeUnit.SECONDS);
            assertThat(bytes).as("a send within 10 s").isNotNull();
            return bytes;
        }

        void complete(Throwable failure) {
            Consumer<Throwable> done = pending.poll();
            assertThat(done).as("a send in flight").isNotNull();
            done.accept(failure);
        }

        void clientGone() throws Exception {
            gone.get(10, TimeUnit.SECONDS).accept(new IOException("the client reset the stream"));
        }
    }
}
