package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.etcd.jetcd.ByteSequence;
import io.k4j.storage.KeyValue;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;

/**
 * What the conformance suite leaves to each backend: how the etcd mapping handles etcd's limits and corner cases.
 * Each test works under its own prefix, so they share one etcd.
 */
class EtcdKeyValueStoreMappingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private static EtcdProcess etcd;
    private static int testNumber;

    private EtcdKeyValueStore store;
    private String prefix;

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdProcess.start();
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @BeforeEach
    void connect() {
        store = EtcdKeyValueStore.connect(etcd.endpoint());
        testNumber++;
        prefix = "/registry/mapping-" + testNumber + "/";
    }

    @AfterEach
    void disconnect() {
        store.close();
    }

    @Test
    void freshEtcdStartsAtRevisionOneSoTheFirstWriteGetsTwo() {
        try (EtcdProcess fresh = EtcdProcess.start(); EtcdKeyValueStore freshStore = EtcdKeyValueStore.connect(fresh.endpoint())) {
            assertThat(freshStore.currentRevision()).isEqualTo(1);
            assertThat(freshStore.compactedRevision()).isZero();
            assertThat(freshStore.create("/registry/a", bytes("x"), Lease.NONE).modRevision()).isEqualTo(2);
        }
    }

    @Test
    void theLargestAcceptedValueIsAlsoAcceptedByEtcdAndOneByteMoreIsRejectedBeforeSending() {
        String key = prefix + "large";
        int largest = EtcdKeyValueStore.DEFAULT_MAX_REQUEST_BYTES - 3 * key.getBytes(UTF_8).length
                - EtcdKeyValueStore.REQUEST_OVERHEAD_BYTES;
        long revision = store.currentRevision();

        assertThatThrownBy(() -> store.create(key, new byte[largest + 1], Lease.NONE))
                .isInstanceOf(StorageException.ValueTooLarge.class)
                .hasMessageContaining(Integer.toString(largest + 1))
                .hasMessageContaining("limit of " + largest);
        assertThat(store.currentRevision()).isEqualTo(revision);

        KeyValue created = store.create(key, new byte[largest], Lease.NONE);
        assertThat(store.get(key).value()).hasSize(largest);
        KeyValue updated = store.update(key, new byte[largest], created.modRevision(), Lease.NONE);
        assertThatThrownBy(() -> store.update(key, new byte[largest + 1], updated.modRevision(), Lease.NONE))
                .isInstanceOf(StorageException.ValueTooLarge.class);
    }

    @Test
    void etcdsOwnSizeCheckIsReportedAsValueTooLarge() {
        // A store told that etcd accepts more than it does: etcd's refusal must still come back as ValueTooLarge.
        try (EtcdKeyValueStore lenient = EtcdKeyValueStore.connect(etcd.endpoint(), Duration.ofSeconds(15), 3 * 1024 * 1024)) {
            // etcd's own check (1.5 MiB), then gRPC's limit that etcd sets 512 KiB above it.
            assertThatThrownBy(() -> lenient.create(prefix + "large", new byte[1800 * 1024], Lease.NONE))
                    .isInstanceOf(StorageException.ValueTooLarge.class);
            assertThatThrownBy(() -> lenient.create(prefix + "huge", new byte[2500 * 1024], Lease.NONE))
                    .isInstanceOf(StorageException.ValueTooLarge.class);
        }
    }

    @Test
    void rangesFarLargerThanGrpcsDefaultMessageLimitAreRead() {
        byte[] value = new byte[1024 * 1024];
        for (int index = 0; index < 6; index++) {
            store.create(prefix + index, value, Lease.NONE);
        }

        RangeResult result = store.range(RangeRequest.prefix(prefix));

        assertThat(result.items()).hasSize(6).allSatisfy(item -> assertThat(item.value()).hasSize(value.length));
    }

    @Test
    void updateExpectingRevisionZeroNeverCreatesTheKey() {
        assertThatThrownBy(() -> store.update(prefix + "a", bytes("x"), 0, Lease.NONE))
                .isInstanceOf(StorageException.KeyNotFound.class);
        assertThat(store.get(prefix + "a")).isNull();

        KeyValue created = store.create(prefix + "a", bytes("x"), Lease.NONE);
        assertThatThrownBy(() -> store.update(prefix + "a", bytes("y"), 0, Lease.NONE))
                .isInstanceOfSatisfying(StorageException.Conflict.class,
                        conflict -> assertThat(conflict.current().modRevision()).isEqualTo(created.modRevision()));
    }

    @Test
    void compactionErrorsAreEtcds() {
        store.create(prefix + "a", bytes("x"), Lease.NONE);
        long current = store.currentRevision();
        store.compact(current);

        assertThat(store.compactedRevision()).isEqualTo(current);
        assertThatThrownBy(() -> store.compact(current)).isInstanceOfSatisfying(StorageException.Compacted.class,
                error -> assertThat(error.compactedRevision()).isEqualTo(current));
        assertThatThrownBy(() -> store.compact(current + 100)).isInstanceOf(StorageException.FutureRevision.class);
    }

    @Test
    void aWatchWhoseEventsNeedCompactedPreviousValuesFailsWithCompacted() {
        KeyValue created = store.create(prefix + "a", bytes("1"), Lease.NONE);
        KeyValue updated = store.update(prefix + "a", bytes("2"), created.modRevision(), Lease.NONE);
        // Reads at the compacted revision still work, but the update's previous value lives one revision lower.
        store.compact(updated.modRevision());
        Recorder recorder = new Recorder();

        try (Watch ignored = store.watch(prefix, updated.modRevision(), recorder)) {
            await().atMost(TIMEOUT).until(() -> !recorder.errors.isEmpty());
        }

        assertThat(recorder.events).isEmpty();
        assertThat(recorder.errors).singleElement().isInstanceOfSatisfying(StorageException.Compacted.class,
                error -> assertThat(error.compactedRevision()).isEqualTo(updated.modRevision()));
    }

    @Test
    void aListenerMayCallBackIntoTheStore() {
        List<KeyValue> readBack = new CopyOnWriteArrayList<>();
        WatchListener listener = new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> events) {
                // Blocking etcd reads from the listener: this deadlocks if listeners run on jetcd's network threads.
                for (WatchEvent event : events) {
                    readBack.add(store.get(event.key()));
                }
            }

            @Override
            public void onError(StorageException error) {}
        };

        try (Watch ignored = store.watch(prefix, 0, listener)) {
            store.create(prefix + "a", bytes("1"), Lease.NONE);
            store.create(prefix + "b", bytes("2"), Lease.NONE);
            await().atMost(TIMEOUT).until(() -> readBack.size() == 2);
        }
        assertThat(readBack).extracting(KeyValue::key).containsExactly(prefix + "a", prefix + "b");
    }

    @Test
    void closingAWatchFromItsOwnListenerStopsIt() {
        Recorder recorder = new Recorder();
        Watch[] watch = new Watch[1];
        WatchListener closing = new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> events) {
                recorder.onEvents(events);
                watch[0].close();
            }

            @Override
            public void onError(StorageException error) {
                recorder.onError(error);
            }
        };
        watch[0] = store.watch(prefix, 0, closing);
        store.create(prefix + "a", bytes("1"), Lease.NONE);
        await().atMost(TIMEOUT).until(() -> recorder.events.size() == 1);

        KeyValue later = store.create(prefix + "b", bytes("2"), Lease.NONE);
        Recorder witness = new Recorder();
        try (Watch ignored = store.watch(prefix, later.modRevision(), witness)) {
            await().atMost(TIMEOUT).until(() -> witness.events.size() == 1);
        }
        assertThat(recorder.events).hasSize(1);
        assertThat(recorder.errors).isEmpty();
    }

    @Test
    void allKeysAreWatchedAndRangedWithAnEmptyPrefix() {
        KeyValue created = store.create(prefix + "a", bytes("1"), Lease.NONE);
        Recorder recorder = new Recorder();

        try (Watch ignored = store.watch("", created.modRevision(), recorder)) {
            await().atMost(TIMEOUT).until(() -> recorder.events.size() == 1);
        }
        assertThat(store.range(RangeRequest.prefix("")).items()).extracting(KeyValue::key).contains(prefix + "a");
        assertThat(store.count("")).isPositive();
    }

    @Test
    void prefixEndIncrementsTheLastByteThatCanBeIncremented() {
        assertThat(EtcdKeyValueStore.prefixEnd(EtcdKeyValueStore.bytes("/registry/pods/")))
                .isEqualTo(EtcdKeyValueStore.bytes("/registry/pods0"));
        assertThat(EtcdKeyValueStore.prefixEnd(ByteSequence.from(new byte[] {'a', (byte) 0xff})))
                .isEqualTo(ByteSequence.from(new byte[] {'b'}));
        assertThat(EtcdKeyValueStore.prefixEnd(ByteSequence.from(new byte[] {(byte) 0xff})))
                .isEqualTo(ByteSequence.from(new byte[] {0}));
        assertThat(EtcdKeyValueStore.prefixEnd(ByteSequence.EMPTY)).isEqualTo(ByteSequence.from(new byte[] {0}));
    }

    @Test
    void connectingToNothingFailsWithUnavailable() {
        int unusedPort = etcd.clientUrl().getPort() + 1;
        assertThatThrownBy(() -> EtcdKeyValueStore.connect("etcd://127.0.0.1:" + unusedPort, Duration.ofSeconds(2),
                EtcdKeyValueStore.DEFAULT_MAX_REQUEST_BYTES))
                .isInstanceOf(StorageException.Unavailable.class)
                .isInstanceOf(StorageException.Retriable.class);
    }

    @Test
    void aRequestLeavesNothingInFlightWhetherItSucceedsOrFails() {
        byte[] value = "v".getBytes(UTF_8);
        for (int index = 0; index < 100; index++) {
            store.create("/in-flight/" + index, value, Lease.NONE);
        }
        assertThatThrownBy(() -> store.create("/in-flight/0", value, Lease.NONE)).isInstanceOf(StorageException.KeyExists.class);
        assertThatThrownBy(() -> store.update("/in-flight/0", value, 1, Lease.NONE)).isInstanceOf(StorageException.Conflict.class);

        assertThat(store.requestsInFlight()).isZero();
    }

    @Test
    void aRequestThatNoOneAnswersFailsAsUnavailableOnceItTimesOut() throws Exception {
        // Accepts connections and never says a word, as a hung etcd: only the request's deadline ends the wait.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new CopyOnWriteArrayList<>();
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                }
                catch (IOException e) {
                    // Closed at the end of the test.
                }
            });
            try {
                assertThatThrownBy(() -> EtcdKeyValueStore.connect("etcd://127.0.0.1:" + silent.getLocalPort(), Duration.ofSeconds(1),
                        EtcdKeyValueStore.DEFAULT_MAX_REQUEST_BYTES))
                        .isInstanceOf(StorageException.Unavailable.class)
                        .hasMessageContaining("timed out");
                assertThat(accepted).isNotEmpty();
            }
            finally {
                silent.close();
                acceptor.join();
                for (Socket socket : accepted) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void aClosedStoreRefusesRequests() {
        store.close();

        assertThatThrownBy(() -> store.get(prefix + "a")).isInstanceOf(StorageException.Unavailable.class)
                .hasMessageContaining("closed");
    }

    @Test
    void aMissingEtcdBinaryFailsWithAnInstallHint() {
        String previous = System.getProperty(EtcdProcess.BINARY_PROPERTY);
        System.setProperty(EtcdProcess.BINARY_PROPERTY, "/nonexistent/etcd");
        try {
            assertThatThrownBy(EtcdProcess::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("install etcd-server");
        }
        finally {
            if (previous == null) {
                System.clearProperty(EtcdProcess.BINARY_PROPERTY);
            }
            else {
                System.setProperty(EtcdProcess.BINARY_PROPERTY, previous);
            }
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
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
