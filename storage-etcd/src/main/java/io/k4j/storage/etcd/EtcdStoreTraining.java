package io.k4j.storage.etcd;

import io.k4j.storage.KeyValue;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The etcd store's part of a start-up archive's training run, which starts the server on the embedded store: every
 * request and reply kind the apiserver uses, against a private etcd when one is installed, so that an etcd start
 * finds the client's classes (gRPC, Netty, jetcd, protobuf) loaded and linked in the archive. Without an etcd only
 * the request path is loaded, by a read that is refused. Training only: it takes a few seconds.
 */
public final class EtcdStoreTraining {
    private static final Logger LOG = LoggerFactory.getLogger("training");
    private static final String PREFIX = "/registry/training/";
    private static final int KEYS = 20;
    private static final Duration EVENTS_TIMEOUT = Duration.ofSeconds(10);

    private EtcdStoreTraining() {}

    public static void run() {
        if (!EtcdProcess.isInstalled()) {
            loadRequestPath();
            return;
        }
        long started = System.nanoTime();
        try (EtcdProcess etcd = EtcdProcess.start(); EtcdKeyValueStore store = EtcdKeyValueStore.connect(etcd.endpoint())) {
            exercise(store);
            LOG.info("etcd client trained against a private etcd in {} ms", (System.nanoTime() - started) / 1_000_000);
        } catch (RuntimeException e) {
            LOG.warn("training on a private etcd stopped early, the archive covers less of the etcd client: {}", e.toString());
            loadRequestPath();
        }
    }

    /** Loads the request path's classes by one read from a loopback port that nothing listens on. */
    private static void loadRequestPath() {
        int unusedPort;
        try {
            unusedPort = EtcdProcess.freeLoopbackPort();
        } catch (UncheckedIOException e) {
            return;
        }
        try {
            EtcdKeyValueStore.connect("http://127.0.0.1:" + unusedPort, Duration.ofSeconds(1), EtcdKeyValueStore.DEFAULT_MAX_REQUEST_BYTES).close();
        } catch (StorageException expected) {
            // Refused, as intended: the classes of the request path are loaded.
        }
    }

    /** Writes, reads, watches, compacts and leases on {@code store}, as the apiserver does. */
    static void exercise(EtcdKeyValueStore store) {
        // Each key is created, updated and deleted: three events apiece.
        CountDownLatch events = new CountDownLatch(3 * KEYS);
        long start = store.currentRevision() + 1;
        Watch watch = store.watch(PREFIX, start, new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> received) {
                received.forEach(event -> events.countDown());
            }

            @Override
            public void onError(StorageException error) {
                // Not expected; the wait for the events below then fails the training.
            }
        });
        long lease = store.grantLease(Duration.ofMinutes(1));
        for (int i = 0; i < KEYS; i++) {
            String key = PREFIX + i;
            byte[] value = value(i);
            KeyValue created = store.create(key, value, i % 2 == 0 ? lease : 0);
            expectFailure(() -> store.create(key, value, 0));
            KeyValue updated = store.update(key, value(-i), created.modRevision(), 0);
            expectFailure(() -> store.update(key, value, created.modRevision(), 0));
            store.get(key);
            store.delete(key, updated.modRevision());
        }
        for (int i = 0; i < KEYS; i++) {
            store.create(PREFIX + "kept/" + i, value(i), 0);
        }
        RangeResult page = store.range(RangeRequest.prefix(PREFIX).withLimit(KEYS / 2));
        store.range(RangeRequest.prefix(PREFIX).startingAt(page.items().getLast().key() + "\0").atRevision(page.revision()));
        store.count(PREFIX);
        store.keepAlive(lease);
        store.revokeLease(lease);
        await(events, "the training watch's events");
        watch.close();
        long current = store.currentRevision();
        store.compact(current - 1);
        store.compactedRevision();
        expectFailure(() -> store.range(RangeRequest.prefix(PREFIX).atRevision(start)));
        CountDownLatch compactedError = new CountDownLatch(1);
        Watch fromCompacted = store.watch(PREFIX, start, new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> received) {}

            @Override
            public void onError(StorageException error) {
                compactedError.countDown();
            }
        });
        await(compactedError, "the error of a watch from a compacted revision");
        fromCompacted.close();
    }

    private static byte[] value(int i) {
        return ("{\"training\":" + i + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static void expectFailure(Runnable request) {
        try {
            request.run();
        } catch (StorageException expected) {
            // Refused as intended: the failure's reply path is loaded too.
            return;
        }
        throw new IllegalStateException("a request that must fail succeeded");
    }

    private static void await(CountDownLatch latch, String what) {
        try {
            if (!latch.await(EVENTS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(what + " did not arrive within " + EVENTS_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }
}
