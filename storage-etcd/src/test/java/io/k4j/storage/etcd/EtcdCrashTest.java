package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.k4j.storage.KeyValue;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;

/**
 * etcd killed with SIGKILL and started again while the store writes and watches: acknowledged writes survive, and
 * a watch continues after the restart without losing or repeating an event.
 */
class EtcdCrashTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String PREFIX = "/registry/crash/";

    private EtcdProcess etcd;
    private EtcdKeyValueStore store;

    @BeforeEach
    void start() {
        etcd = EtcdProcess.start();
        // The default request timeout: the first request of the JVM also loads gRPC and Netty, which on a loaded
        // machine took more than 5 s. Writers retry what fails while etcd is down, so a long timeout costs nothing.
        store = EtcdKeyValueStore.connect(etcd.endpoint());
    }

    @AfterEach
    void stop() {
        if (store != null) {
            store.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void acknowledgedWritesSurviveEtcdBeingKilledAndAWatchResumesWithoutGapsOrDuplicates() throws Exception {
        long start = store.currentRevision();
        Recorder recorder = new Recorder();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try (Watch ignored = store.watch(PREFIX, 0, recorder)) {
            List<Future<?>> running = new ArrayList<>();
            for (int writer = 0; writer < 4; writer++) {
                int writerNumber = writer;
                running.add(writers.submit(() -> writeUntilStopped(writerNumber, writing, acknowledged)));
            }
            for (int crash = 1; crash <= 2; crash++) {
                int before = acknowledged.size();
                await().atMost(TIMEOUT).until(() -> acknowledged.size() >= before + 50);
                etcd.kill();
                Set<String> acknowledgedBeforeTheCrash = Set.copyOf(acknowledged);
                etcd.restart();

                Set<String> stored = storedKeys();
                assertThat(acknowledgedBeforeTheCrash.stream().filter(key -> !stored.contains(key)).toList())
                        .as("acknowledged keys missing after crash %d", crash).isEmpty();
            }
            int afterRestarts = acknowledged.size();
            await().atMost(TIMEOUT).until(() -> acknowledged.size() >= afterRestarts + 50);
            writing.set(false);
            for (Future<?> writer : running) {
                writer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }

            // Nothing but the writers touches etcd, so the watch must have seen every revision exactly once.
            long end = store.currentRevision();
            await().atMost(TIMEOUT).until(() -> !recorder.errors.isEmpty()
                    || (!recorder.events.isEmpty() && recorder.events.getLast().revision() >= end));
            assertThat(recorder.errors).isEmpty();
            assertThat(recorder.events.stream().map(WatchEvent::revision).toList())
                    .isEqualTo(LongStream.rangeClosed(start + 1, end).boxed().toList());
            assertThat(recorder.events).allSatisfy(event -> assertThat(event).isInstanceOf(WatchEvent.Put.class));
            Set<String> stored = storedKeys();
            assertThat(acknowledged.stream().filter(key -> !stored.contains(key)).toList()).isEmpty();
            assertThat(recorder.events.stream().map(WatchEvent::key).collect(Collectors.toSet())).isEqualTo(stored);
            assertThat(recorder.events).hasSize(stored.size());
        }
        finally {
            writing.set(false);
            writers.shutdownNow();
        }
    }

    /** Creates keys one after another; a create that failed as Unavailable is retried and may turn out done. */
    private Void writeUntilStopped(int writer, AtomicBoolean writing, Set<String> acknowledged) {
        for (int index = 0; writing.get(); index++) {
            String key = PREFIX + "writer-" + writer + "/" + index;
            while (true) {
                try {
                    store.create(key, ("value " + index).getBytes(UTF_8), Lease.NONE);
                    acknowledged.add(key);
                    break;
                }
                catch (StorageException.KeyExists e) {
                    // An earlier try that timed out while etcd was down was applied after all.
                    acknowledged.add(key);
                    break;
                }
                catch (StorageException.Unavailable e) {
                    if (!writing.get()) {
                        return null;
                    }
                }
            }
        }
        return null;
    }

    /** Every key the writers stored; reading right after a restart may need a retry while the client reconnects. */
    private Set<String> storedKeys() {
        List<KeyValue> items = await().atMost(TIMEOUT).ignoreException(StorageException.Unavailable.class)
                .until(() -> store.range(RangeRequest.prefix(PREFIX)).items(), result -> true);
        return items.stream().map(KeyValue::key).collect(Collectors.toSet());
    }

    private static final class Recorder implements WatchListener {
        final List<WatchEvent> events = new CopyOnWriteArrayList<>();
        final List<StorageException> errors = new CopyOnWriteArrayList<>();

        @Override
        public void onEvents(List<WatchEvent> batch) {
            events.addAll(batch);
        }

        @Override
        public void onError(StorageException error) {
            errors.add(error);
        }
    }
}
