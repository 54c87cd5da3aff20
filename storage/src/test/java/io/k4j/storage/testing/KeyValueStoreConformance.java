package io.k4j.storage.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.LongStream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link KeyValueStore} must have, written once and run against every backend (the
 * storage test-jar). A backend's test extends this class and implements {@link #newStore()}.
 *
 * <p>The tests never assume that a fresh store starts at revision 0 or has never been compacted: a backend
 * on a shared server (etcd) may hand out an empty key space whose revision continues from earlier tests.
 * They do assume that nobody else writes to the store while a test runs. All keys live under
 * {@code /registry/}.
 *
 * <p>The suite closes the store after each test. A subclass's own {@code @AfterEach} runs before that, so
 * files should be removed with {@code @TempDir} (cleaned after every callback) or in {@code @AfterAll}.
 */
public abstract class KeyValueStoreConformance {
    /** etcd's minimum lease TTL is about 2 s with default election settings; shorter TTLs get rounded up. */
    private static final Duration LEASE_TTL = Duration.ofSeconds(2);
    private static final Duration EVENT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration LEASE_TIMEOUT = Duration.ofSeconds(15);

    protected KeyValueStore store;

    /** A fresh store holding no keys; the suite closes it after the test. */
    protected abstract KeyValueStore newStore();

    @BeforeEach
    final void openStore() {
        store = newStore();
    }

    @AfterEach
    final void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    // ---- revisions, get, create, update, delete ----

    @Test
    void everyWriteAdvancesTheGlobalRevisionByOne() {
        long start = store.currentRevision();

        KeyValue created = store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        assertThat(created.modRevision()).isEqualTo(start + 1);
        assertThat(store.currentRevision()).isEqualTo(start + 1);

        KeyValue other = store.create("/registry/services/default/b", bytes("1"), Lease.NONE);
        assertThat(other.modRevision()).isEqualTo(start + 2);

        KeyValue updated = store.update("/registry/pods/default/a", bytes("2"), created.modRevision(), Lease.NONE);
        assertThat(updated.modRevision()).isEqualTo(start + 3);

        store.delete("/registry/pods/default/a", updated.modRevision());
        assertThat(store.currentRevision()).isEqualTo(start + 4);
    }

    @Test
    void getReturnsTheStoredKeyOrNull() {
        assertThat(store.get("/registry/pods/default/a")).isNull();

        KeyValue created = store.create("/registry/pods/default/a", bytes("hello"), Lease.NONE);

        KeyValue read = store.get("/registry/pods/default/a");
        assertThat(read.key()).isEqualTo("/registry/pods/default/a");
        assertThat(read.value()).isEqualTo(bytes("hello"));
        assertThat(read.createRevision()).isEqualTo(created.modRevision());
        assertThat(read.modRevision()).isEqualTo(created.modRevision());
        assertThat(read.version()).isEqualTo(1);
        assertThat(read.lease()).isEqualTo(Lease.NONE);
        assertSameState(created, read);
        assertThat(store.get("/registry/pods/default")).isNull();
        assertThat(store.get("/registry/pods/default/a/b")).isNull();
    }

    @Test
    void createOfAnExistingKeyFailsWithKeyExistsAndWritesNothing() {
        store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        long revision = store.currentRevision();

        assertThatThrownBy(() -> store.create("/registry/pods/default/a", bytes("2"), Lease.NONE))
                .isInstanceOfSatisfying(StorageException.KeyExists.class,
                        error -> assertThat(error.key()).isEqualTo("/registry/pods/default/a"));

        assertThat(store.currentRevision()).isEqualTo(revision);
        assertThat(store.get("/registry/pods/default/a").value()).isEqualTo(bytes("1"));
    }

    @Test
    void updateWithTheCurrentModRevisionReplacesTheValueAndCountsTheVersion() {
        KeyValue created = store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);

        KeyValue second = store.update("/registry/pods/default/a", bytes("2"), created.modRevision(), Lease.NONE);
        KeyValue third = store.update("/registry/pods/default/a", bytes("3"), second.modRevision(), Lease.NONE);

        assertThat(second.version()).isEqualTo(2);
        assertThat(third.version()).isEqualTo(3);
        assertThat(third.createRevision()).isEqualTo(created.modRevision());
        assertThat(third.modRevision()).isEqualTo(second.modRevision() + 1);
        assertThat(third.value()).isEqualTo(bytes("3"));
        assertSameState(third, store.get("/registry/pods/default/a"));
    }

    @Test
    void updateWithAStaleModRevisionFailsWithConflictCarryingTheCurrentState() {
        KeyValue created = store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        KeyValue updated = store.update("/registry/pods/default/a", bytes("2"), created.modRevision(), Lease.NONE);
        long revision = store.currentRevision();

        assertThatThrownBy(() -> store.update("/registry/pods/default/a", bytes("3"), created.modRevision(), Lease.NONE))
                .isInstanceOfSatisfying(StorageException.Conflict.class, error -> assertSameState(updated, error.current()));

        assertThat(store.currentRevision()).isEqualTo(revision);
        assertThat(store.get("/registry/pods/default/a").value()).isEqualTo(bytes("2"));
    }

    @Test
    void updateOfAnAbsentKeyFailsWithKeyNotFound() {
        long revision = store.currentRevision();

        assertThatThrownBy(() -> store.update("/registry/pods/default/a", bytes("1"), 1, Lease.NONE))
                .isInstanceOfSatisfying(StorageException.KeyNotFound.class,
                        error -> assertThat(error.key()).isEqualTo("/registry/pods/default/a"));
        assertThat(store.currentRevision()).isEqualTo(revision);
        assertThat(store.get("/registry/pods/default/a")).isNull();
    }

    @Test
    void deleteWithTheCurrentModRevisionReturnsTheStateBeforeTheDelete() {
        KeyValue created = store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        KeyValue updated = store.update("/registry/pods/default/a", bytes("2"), created.modRevision(), Lease.NONE);

        KeyValue deleted = store.delete("/registry/pods/default/a", updated.modRevision());

        assertSameState(updated, deleted);
        assertThat(store.get("/registry/pods/default/a")).isNull();
        assertThat(store.currentRevision()).isEqualTo(updated.modRevision() + 1);
    }

    @Test
    void deleteWithAStaleModRevisionFailsWithConflictAndKeepsTheKey() {
        KeyValue created = store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        KeyValue updated = store.update("/registry/pods/default/a", bytes("2"), created.modRevision(), Lease.NONE);
        long revision = store.currentRevision();

        assertThatThrownBy(() -> store.delete("/registry/pods/default/a", created.modRevision()))
                .isInstanceOfSatisfying(StorageException.Conflict.class, error -> assertSameState(updated, error.current()));

        assertThat(store.currentRevision()).isEqualTo(revision);
        assertSameState(updated, store.get("/registry/pods/default/a"));
    }

    @Test
    void deleteWithZeroIsUnconditional() {
        KeyValue created = store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        KeyValue updated = store.update("/registry/pods/default/a", bytes("2"), created.modRevision(), Lease.NONE);

        KeyValue deleted = store.delete("/registry/pods/default/a", 0);

        assertSameState(updated, deleted);
        assertThat(store.get("/registry/pods/default/a")).isNull();
    }

    @Test
    void deleteOfAnAbsentKeyFailsWithKeyNotFound() {
        store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        store.delete("/registry/pods/default/a", 0);
        long revision = store.currentRevision();

        assertThatThrownBy(() -> store.delete("/registry/pods/default/a", 0))
                .isInstanceOfSatisfying(StorageException.KeyNotFound.class,
                        error -> assertThat(error.key()).isEqualTo("/registry/pods/default/a"));
        assertThatThrownBy(() -> store.delete("/registry/pods/default/never", 5))
                .isInstanceOf(StorageException.KeyNotFound.class);
        assertThat(store.currentRevision()).isEqualTo(revision);
    }

    @Test
    void recreateAfterDeleteStartsANewLife() {
        KeyValue first = store.create("/registry/pods/default/a", bytes("1"), Lease.NONE);
        store.update("/registry/pods/default/a", bytes("2"), first.modRevision(), Lease.NONE);
        store.delete("/registry/pods/default/a", 0);

        KeyValue again = store.create("/registry/pods/default/a", bytes("3"), Lease.NONE);

        assertThat(again.version()).isEqualTo(1);
        assertThat(again.createRevision()).isEqualTo(again.modRevision());
        assertThat(again.createRevision()).isGreaterThan(first.createRevision());
        assertSameState(again, store.get("/registry/pods/default/a"));
        KeyValue updated = store.update("/registry/pods/default/a", bytes("4"), again.modRevision(), Lease.NONE);
        assertThat(updated.version()).isEqualTo(2);
        assertThat(updated.createRevision()).isEqualTo(again.modRevision());
    }

    @Test
    void emptyValuesAreStored() {
        store.create("/registry/configmaps/default/empty", new byte[0], Lease.NONE);

        assertThat(store.get("/registry/configmaps/default/empty").value()).isEmpty();
    }

    @Test
    void valuesUpToOneMebibyteRoundTripByteExact() {
        byte[] large = new byte[1024 * 1024];
        new Random(42).nextBytes(large);

        KeyValue created = store.create("/registry/configmaps/default/large", large, Lease.NONE);
        assertThat(store.get("/registry/configmaps/default/large").value()).isEqualTo(large);

        byte[] changed = large.clone();
        changed[changed.length - 1] ^= 0x5a;
        store.update("/registry/configmaps/default/large", changed, created.modRevision(), Lease.NONE);
        assertThat(store.range(RangeRequest.prefix("/registry/configmaps/")).items().getFirst().value()).isEqualTo(changed);
        assertThat(store.range(RangeRequest.prefix("/registry/configmaps/").atRevision(created.modRevision()))
                .items().getFirst().value()).isEqualTo(large);
    }

    @Test
    void valuesFarAboveTheRequestLimitAreRejected() {
        long revision = store.currentRevision();

        assertThatThrownBy(() -> store.create("/registry/configmaps/default/huge", new byte[4 * 1024 * 1024], Lease.NONE))
                .isInstanceOf(StorageException.ValueTooLarge.class);
        assertThat(store.currentRevision()).isEqualTo(revision);
        assertThat(store.get("/registry/configmaps/default/huge")).isNull();
    }

    @Test
    void concurrentWritersGetUniqueGapFreeRevisions() throws Exception {
        long start = store.currentRevision();
        int threads = 16;
        int writesPerThread = 40;

        List<List<Long>> perThread = runConcurrently(threads, thread -> {
            List<Long> revisions = new ArrayList<>();
            for (int i = 0; i < writesPerThread; i++) {
                revisions.add(store.create("/registry/pods/ns" + thread + "/p" + i, bytes("x"), Lease.NONE).modRevision());
            }
            return revisions;
        });

        List<Long> all = perThread.stream().flatMap(List::stream).sorted().toList();
        assertThat(all).containsExactlyElementsOf(
                LongStream.rangeClosed(start + 1, start + (long) threads * writesPerThread).boxed().toList());
        assertThat(store.currentRevision()).isEqualTo(start + (long) threads * writesPerThread);
        for (List<Long> revisions : perThread) {
            assertThat(revisions).isSorted();
        }
        assertThat(store.count("/registry/pods/")).isEqualTo((long) threads * writesPerThread);
    }

    @Test
    void compareAndSwapUnderContentionLosesNoUpdate() throws Exception {
        store.create("/registry/counters/c", bytes("0"), Lease.NONE);
        int threads = 8;
        int incrementsPerThread = 15;

        runConcurrently(threads, thread -> {
            for (int i = 0; i < incrementsPerThread; i++) {
                while (true) {
                    KeyValue current = store.get("/registry/counters/c");
                    int next = Integer.parseInt(new String(current.value(), UTF_8)) + 1;
                    try {
                        store.update("/registry/counters/c", bytes(Integer.toString(next)), current.modRevision(), Lease.NONE);
                        break;
                    } catch (StorageException.Conflict conflict) {
                        assertThat(conflict.current().modRevision()).isGreaterThan(current.modRevision());
                    }
                }
            }
            return null;
        });

        KeyValue counter = store.get("/registry/counters/c");
        assertThat(new String(counter.value(), UTF_8)).isEqualTo(Integer.toString(threads * incrementsPerThread));
        assertThat(counter.version()).isEqualTo(threads * incrementsPerThread + 1L);
    }

    // ---- range and count ----

    @Test
    void rangeReturnsTheKeysUnderThePrefixInKeyOrder() {
        store.create("/registry/pods/ns1/c", bytes("c"), Lease.NONE);
        store.create("/registry/pods/ns1/a", bytes("a"), Lease.NONE);
        store.create("/registry/pods/ns2/a", bytes("2a"), Lease.NONE);
        store.create("/registry/pods/ns1/b", bytes("b"), Lease.NONE);
        store.create("/registry/podsx/ns1/a", bytes("other resource"), Lease.NONE);
        store.create("/registry/pod", bytes("shorter"), Lease.NONE);
        store.create("/registry/pods/ns1/gone", bytes("deleted"), Lease.NONE);
        store.delete("/registry/pods/ns1/gone", 0);

        RangeResult all = store.range(RangeRequest.prefix("/registry/pods/"));
        assertThat(keys(all)).containsExactly("/registry/pods/ns1/a", "/registry/pods/ns1/b", "/registry/pods/ns1/c", "/registry/pods/ns2/a");
        assertThat(all.more()).isFalse();
        assertThat(all.count()).isEqualTo(4);
        assertThat(all.revision()).isEqualTo(store.currentRevision());
        assertSameState(store.get("/registry/pods/ns1/b"), all.items().get(1));

        assertThat(keys(store.range(RangeRequest.prefix("/registry/pods/ns1/")))).containsExactly(
                "/registry/pods/ns1/a", "/registry/pods/ns1/b", "/registry/pods/ns1/c");
        RangeResult none = store.range(RangeRequest.prefix("/registry/secrets/"));
        assertThat(none.items()).isEmpty();
        assertThat(none.count()).isZero();
        assertThat(none.more()).isFalse();
    }

    @Test
    void rangePagesWithLimitAndStartKey() {
        for (String name : List.of("a", "b", "c", "d", "e")) {
            store.create("/registry/pods/default/" + name, bytes(name), Lease.NONE);
        }

        RangeResult first = store.range(RangeRequest.prefix("/registry/pods/").withLimit(2));
        assertThat(keys(first)).containsExactly("/registry/pods/default/a", "/registry/pods/default/b");
        assertThat(first.more()).isTrue();
        assertThat(first.count()).isEqualTo(5);

        // Pages are read at the first page's revision, as the apiserver's continue tokens do.
        store.create("/registry/pods/default/bb", bytes("later"), Lease.NONE);
        RangeRequest next = RangeRequest.prefix("/registry/pods/").withLimit(2).atRevision(first.revision())
                .startingAt("/registry/pods/default/b\0");
        RangeResult second = store.range(next);
        assertThat(keys(second)).containsExactly("/registry/pods/default/c", "/registry/pods/default/d");
        assertThat(second.more()).isTrue();
        assertThat(second.count()).isEqualTo(3);
        assertThat(second.revision()).isEqualTo(first.revision());

        RangeResult last = store.range(next.startingAt("/registry/pods/default/d\0"));
        assertThat(keys(last)).containsExactly("/registry/pods/default/e");
        assertThat(last.more()).isFalse();
        assertThat(last.count()).isEqualTo(1);

        RangeResult exact = store.range(RangeRequest.prefix("/registry/pods/").withLimit(6));
        assertThat(exact.items()).hasSize(6);
        assertThat(exact.more()).isFalse();

        RangeResult fromKey = store.range(RangeRequest.prefix("/registry/pods/").startingAt("/registry/pods/default/bb"));
        assertThat(keys(fromKey)).containsExactly(
                "/registry/pods/default/bb", "/registry/pods/default/c", "/registry/pods/default/d", "/registry/pods/default/e");
    }

    @Test
    void rangeAtAnOldRevisionSeesOldValuesAndDeletedKeys() {
        KeyValue a = store.create("/registry/pods/default/a", bytes("a1"), Lease.NONE);
        KeyValue b = store.create("/registry/pods/default/b", bytes("b1"), Lease.NONE);
        long before = store.currentRevision();
        store.update("/registry/pods/default/a", bytes("a2"), a.modRevision(), Lease.NONE);
        store.delete("/registry/pods/default/b", b.modRevision());
        store.create("/registry/pods/default/c", bytes("c1"), Lease.NONE);

        RangeResult old = store.range(RangeRequest.prefix("/registry/pods/").atRevision(before));
        assertThat(old.revision()).isEqualTo(before);
        assertThat(old.count()).isEqualTo(2);
        assertThat(old.items()).hasSize(2);
        assertSameState(a, old.items().get(0));
        assertSameState(b, old.items().get(1));

        RangeResult atFirst = store.range(RangeRequest.prefix("/registry/pods/").atRevision(a.modRevision()));
        assertThat(keys(atFirst)).containsExactly("/registry/pods/default/a");

        RangeResult now = store.range(RangeRequest.prefix("/registry/pods/"));
        assertThat(keys(now)).containsExactly("/registry/pods/default/a", "/registry/pods/default/c");
        assertThat(now.items().getFirst().value()).isEqualTo(bytes("a2"));

        RangeResult atCurrent = store.range(RangeRequest.prefix("/registry/pods/").atRevision(store.currentRevision()));
        assertThat(keys(atCurrent)).containsExactly("/registry/pods/default/a", "/registry/pods/default/c");
    }

    @Test
    void rangeAtAFutureRevisionFails() {
        store.create("/registry/pods/default/a", bytes("a"), Lease.NONE);

        assertThatThrownBy(() -> store.range(RangeRequest.prefix("/registry/pods/").atRevision(store.currentRevision() + 10)))
                .isInstanceOf(StorageException.FutureRevision.class);
    }

    @Test
    void countCountsTheLiveKeysUnderThePrefix() {
        store.create("/registry/pods/ns1/a", bytes("a"), Lease.NONE);
        store.create("/registry/pods/ns2/b", bytes("b"), Lease.NONE);
        store.create("/registry/pods/ns2/c", bytes("c"), Lease.NONE);
        store.create("/registry/podsx/ns1/a", bytes("a"), Lease.NONE);
        store.delete("/registry/pods/ns2/c", 0);

        assertThat(store.count("/registry/pods/")).isEqualTo(2);
        assertThat(store.count("/registry/pods/ns2/")).isEqualTo(1);
        assertThat(store.count("/registry/secrets/")).isZero();
    }

    // ---- watch ----

    @Test
    void watchFromTheCurrentRevisionDeliversOnlyLaterChanges() {
        KeyValue a = store.create("/registry/pods/default/a", bytes("a1"), Lease.NONE);
        RecordingListener listener = new RecordingListener();

        try (Watch ignored = store.watch("/registry/pods/", 0, listener)) {
            KeyValue updated = store.update("/registry/pods/default/a", bytes("a2"), a.modRevision(), Lease.NONE);
            KeyValue b = store.create("/registry/pods/default/b", bytes("b1"), Lease.NONE);
            KeyValue deleted = store.delete("/registry/pods/default/a", 0);

            List<WatchEvent> events = listener.awaitEvents(3);
            assertThat(events).hasSize(3);
            WatchEvent.Put update = (WatchEvent.Put) events.get(0);
            assertSameState(updated, update.current());
            assertSameState(a, update.previous());
            assertThat(update.isCreate()).isFalse();
            WatchEvent.Put create = (WatchEvent.Put) events.get(1);
            assertSameState(b, create.current());
            assertThat(create.isCreate()).isTrue();
            WatchEvent.Delete delete = (WatchEvent.Delete) events.get(2);
            assertThat(delete.revision()).isEqualTo(b.modRevision() + 1);
            assertThat(delete.key()).isEqualTo("/registry/pods/default/a");
            assertSameState(deleted, delete.previous());
        }
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void watchFromAnOldRevisionReplaysHistoryWithPreviousValuesThenContinuesLive() {
        KeyValue a1 = store.create("/registry/pods/default/a", bytes("a1"), Lease.NONE);
        KeyValue a2 = store.update("/registry/pods/default/a", bytes("a2"), a1.modRevision(), Lease.NONE);
        store.delete("/registry/pods/default/a", 0);
        KeyValue b1 = store.create("/registry/pods/default/b", bytes("b1"), Lease.NONE);
        RecordingListener listener = new RecordingListener();

        try (Watch ignored = store.watch("/registry/pods/", a2.modRevision(), listener)) {
            KeyValue b2 = store.update("/registry/pods/default/b", bytes("b2"), b1.modRevision(), Lease.NONE);

            listener.awaitRevision(b2.modRevision());
            List<WatchEvent> events = listener.events();
            assertThat(events).extracting(WatchEvent::revision)
                    .containsExactly(a2.modRevision(), a2.modRevision() + 1, b1.modRevision(), b2.modRevision());

            WatchEvent.Put replayedUpdate = (WatchEvent.Put) events.get(0);
            assertSameState(a2, replayedUpdate.current());
            assertSameState(a1, replayedUpdate.previous());
            WatchEvent.Delete replayedDelete = (WatchEvent.Delete) events.get(1);
            assertSameState(a2, replayedDelete.previous());
            WatchEvent.Put replayedCreate = (WatchEvent.Put) events.get(2);
            assertSameState(b1, replayedCreate.current());
            assertThat(replayedCreate.previous()).isNull();
            WatchEvent.Put live = (WatchEvent.Put) events.get(3);
            assertSameState(b2, live.current());
            assertSameState(b1, live.previous());
        }
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void watchFromAnOldRevisionWhileWritesContinueHasNoGapsOrDuplicates() throws Exception {
        long start = store.currentRevision();
        for (int i = 0; i < 50; i++) {
            store.create("/registry/pods/default/before-" + i, bytes("x"), Lease.NONE);
        }
        RecordingListener listener = new RecordingListener();
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> written = writer.submit(() -> {
                int count = 0;
                while (writing.get() && count < 2000) {
                    store.create("/registry/pods/default/during-" + count, bytes("x"), Lease.NONE);
                    count++;
                }
                return count;
            });
            waitAtMost(EVENT_TIMEOUT).until(() -> store.currentRevision() >= start + 60);
            try (Watch ignored = store.watch("/registry/pods/", start + 1, listener)) {
                waitAtMost(EVENT_TIMEOUT).until(() -> listener.events().size() >= 100);
                writing.set(false);
                int total = 50 + written.get(5, TimeUnit.SECONDS);
                listener.awaitRevision(start + total);
                assertThat(listener.events()).extracting(WatchEvent::revision)
                        .containsExactlyElementsOf(LongStream.rangeClosed(start + 1, start + total).boxed().toList());
            }
        } finally {
            writing.set(false);
            writer.shutdownNow();
        }
        assertThat(listener.errors).isEmpty();
    }

    @Test
    void watchDeliversConcurrentWritesInRevisionOrder() throws Exception {
        long start = store.currentRevision();
        RecordingListener listener = new RecordingListener();
        int threads = 8;
        int writesPerThread = 30;

        try (Watch ignored = store.watch("/registry/pods/", 0, listener)) {
            runConcurrently(threads, thread -> {
                for (int i = 0; i < writesPerThread; i++) {
                    store.create("/registry/pods/ns" + thread + "/p" + i, bytes("x"), Lease.NONE);
                }
                return null;
            });

            List<WatchEvent> events = listener.awaitEvents(threads * writesPerThread);
            assertThat(events).extracting(WatchEvent::revision).containsExactlyElementsOf(
                    LongStream.rangeClosed(start + 1, start + (long) threads * writesPerThread).boxed().toList());
        }
        assertThat(listener.overlappingCalls.get()).isFalse();
    }

    @Test
    void watchSeesOnlyKeysUnderItsPrefix() {
        RecordingListener pods = new RecordingListener();
        RecordingListener namespace = new RecordingListener();

        try (Watch ignored = store.watch("/registry/pods/", 0, pods);
                Watch ignoredToo = store.watch("/registry/pods/ns1/", 0, namespace)) {
            store.create("/registry/podsx/ns1/a", bytes("x"), Lease.NONE);
            store.create("/registry/services/ns1/a", bytes("x"), Lease.NONE);
            store.create("/registry/pods/ns2/a", bytes("x"), Lease.NONE);
            store.create("/registry/pods/ns1/a", bytes("x"), Lease.NONE);

            List<WatchEvent> podEvents = pods.awaitEvents(2);
            assertThat(podEvents).extracting(WatchEvent::key).containsExactly("/registry/pods/ns2/a", "/registry/pods/ns1/a");
            List<WatchEvent> namespaceEvents = namespace.awaitEvents(1);
            assertThat(namespaceEvents).extracting(WatchEvent::key).containsExactly("/registry/pods/ns1/a");
        }
    }

    @Test
    void requestedProgressFollowsTheWatchsOwnEventsAndPassesChangesOutsideItsPrefix() {
        RecordingListener pods = new RecordingListener();

        try (Watch ignored = store.watch("/registry/pods/", 0, pods)) {
            store.create("/registry/pods/ns1/a", bytes("x"), Lease.NONE);
            KeyValue elsewhere = store.create("/registry/leases/ns1/a", bytes("x"), Lease.NONE);

            // etcd answers a watch only once it has sent everything up to now, so ask until an answer comes.
            waitAtMost(EVENT_TIMEOUT).untilAsserted(() -> {
                store.requestWatchProgress();
                assertThat(pods.progress()).as("progress reported").anyMatch(revision -> revision >= elsewhere.modRevision());
            });
            assertThat(pods.events()).extracting(WatchEvent::key).containsExactly("/registry/pods/ns1/a");
        }
    }

    @Test
    void aClosedWatchReceivesNothingMore() {
        RecordingListener closed = new RecordingListener();
        RecordingListener open = new RecordingListener();

        try (Watch ignored = store.watch("/registry/pods/", 0, open)) {
            Watch watch = store.watch("/registry/pods/", 0, closed);
            store.create("/registry/pods/default/a", bytes("x"), Lease.NONE);
            closed.awaitEvents(1);
            watch.close();

            store.create("/registry/pods/default/b", bytes("x"), Lease.NONE);
            open.awaitEvents(2);
            assertThat(closed.events()).hasSize(1);
        }
    }

    // ---- compaction ----

    @Test
    void readsBelowTheCompactedRevisionFailAndTheLatestStateSurvives() {
        KeyValue a = store.create("/registry/pods/default/a", bytes("a1"), Lease.NONE);
        KeyValue a2 = store.update("/registry/pods/default/a", bytes("a2"), a.modRevision(), Lease.NONE);
        KeyValue a3 = store.update("/registry/pods/default/a", bytes("a3"), a2.modRevision(), Lease.NONE);
        store.create("/registry/pods/default/b", bytes("b1"), Lease.NONE);
        store.delete("/registry/pods/default/b", 0);
        KeyValue c = store.create("/registry/pods/default/c", bytes("c1"), Lease.NONE);
        long compactAt = store.currentRevision();
        KeyValue d = store.create("/registry/pods/default/d", bytes("d1"), Lease.NONE);

        store.compact(compactAt);

        assertThat(store.compactedRevision()).isEqualTo(compactAt);
        assertThatThrownBy(() -> store.range(RangeRequest.prefix("/registry/pods/").atRevision(compactAt - 1)))
                .isInstanceOfSatisfying(StorageException.Compacted.class,
                        error -> assertThat(error.compactedRevision()).isEqualTo(compactAt));
        assertThatThrownBy(() -> store.range(RangeRequest.prefix("/registry/pods/").atRevision(a.modRevision())))
                .isInstanceOf(StorageException.Compacted.class);

        RangeResult atCompacted = store.range(RangeRequest.prefix("/registry/pods/").atRevision(compactAt));
        assertThat(atCompacted.items()).hasSize(2);
        assertSameState(a3, atCompacted.items().get(0));
        assertSameState(c, atCompacted.items().get(1));

        RangeResult latest = store.range(RangeRequest.prefix("/registry/pods/"));
        assertThat(keys(latest)).containsExactly("/registry/pods/default/a", "/registry/pods/default/c", "/registry/pods/default/d");
        assertSameState(a3, store.get("/registry/pods/default/a"));
        assertSameState(d, store.get("/registry/pods/default/d"));
        assertThat(store.get("/registry/pods/default/b")).isNull();

        KeyValue a4 = store.update("/registry/pods/default/a", bytes("a4"), a3.modRevision(), Lease.NONE);
        assertThat(a4.version()).isEqualTo(4);
        assertThat(a4.createRevision()).isEqualTo(a.modRevision());
        assertThat(a4.modRevision()).isEqualTo(d.modRevision() + 1);
        KeyValue b = store.create("/registry/pods/default/b", bytes("b2"), Lease.NONE);
        assertThat(b.version()).isEqualTo(1);
    }

    @Test
    void watchBelowTheCompactedRevisionFailsAndAboveItReplays() {
        KeyValue a = store.create("/registry/pods/default/a", bytes("a1"), Lease.NONE);
        KeyValue a2 = store.update("/registry/pods/default/a", bytes("a2"), a.modRevision(), Lease.NONE);
        KeyValue a3 = store.update("/registry/pods/default/a", bytes("a3"), a2.modRevision(), Lease.NONE);
        KeyValue a4 = store.update("/registry/pods/default/a", bytes("a4"), a3.modRevision(), Lease.NONE);

        store.compact(a3.modRevision());

        StorageException failure = watchFailure("/registry/pods/", a2.modRevision());
        assertThat(failure).isInstanceOf(StorageException.Compacted.class);

        RecordingListener listener = new RecordingListener();
        try (Watch ignored = store.watch("/registry/pods/", a4.modRevision(), listener)) {
            List<WatchEvent> events = listener.awaitEvents(1);
            WatchEvent.Put put = (WatchEvent.Put) events.getFirst();
            assertSameState(a4, put.current());
            assertSameState(a3, put.previous());
        }
    }

    @Test
    void compactionCannotGoBackwardsOrIntoTheFuture() {
        KeyValue a = store.create("/registry/pods/default/a", bytes("a1"), Lease.NONE);
        store.update("/registry/pods/default/a", bytes("a2"), a.modRevision(), Lease.NONE);
        long current = store.currentRevision();

        assertThatThrownBy(() -> store.compact(current + 10)).isInstanceOf(StorageException.FutureRevision.class);
        store.compact(current);
        assertThatThrownBy(() -> store.compact(current)).isInstanceOf(StorageException.Compacted.class);
        assertThatThrownBy(() -> store.compact(a.modRevision())).isInstanceOf(StorageException.Compacted.class);
        assertThat(store.compactedRevision()).isEqualTo(current);
        assertThat(store.get("/registry/pods/default/a").value()).isEqualTo(bytes("a2"));
    }

    // ---- leases ----

    @Test
    void keysOfAnExpiredLeaseAreDeletedWithDeleteEvents() {
        long lease = store.grantLease(LEASE_TTL);
        KeyValue first = store.create("/registry/events/default/one", bytes("1"), lease);
        KeyValue second = store.create("/registry/events/default/two", bytes("2"), lease);
        store.create("/registry/events/default/kept", bytes("3"), Lease.NONE);
        assertThat(first.lease()).isEqualTo(lease);
        assertThat(store.get("/registry/events/default/two").lease()).isEqualTo(lease);
        RecordingListener listener = new RecordingListener();

        try (Watch ignored = store.watch("/registry/events/", 0, listener)) {
            waitAtMost(LEASE_TIMEOUT).until(() -> store.get("/registry/events/default/one") == null
                    && store.get("/registry/events/default/two") == null);

            List<WatchEvent> events = listener.awaitEvents(2);
            assertThat(events).allSatisfy(event -> assertThat(event).isInstanceOf(WatchEvent.Delete.class));
            assertThat(events).extracting(WatchEvent::key)
                    .containsExactlyInAnyOrder("/registry/events/default/one", "/registry/events/default/two");
            WatchEvent.Delete firstDelete = (WatchEvent.Delete) events.stream()
                    .filter(event -> event.key().equals("/registry/events/default/one")).findFirst().orElseThrow();
            assertSameState(first, firstDelete.previous());
            assertThat(events).allSatisfy(event -> assertThat(event.revision()).isGreaterThan(second.modRevision()));
        }
        assertThat(store.get("/registry/events/default/kept")).isNotNull();
        assertThatThrownBy(() -> store.keepAlive(lease)).isInstanceOf(StorageException.LeaseNotFound.class);
    }

    @Test
    void keepAliveExtendsTheLease() {
        String key = "/registry/events/default/renewed";
        long grantRequested = System.nanoTime();
        long lease = store.grantLease(LEASE_TTL);
        store.create(key, bytes("1"), lease);

        // Renew every quarter of the TTL until twice the TTL has passed since the grant: then only the renewals can
        // have kept the key. A renewal of an expired lease fails the test with LeaseNotFound.
        waitAtMost(LEASE_TIMEOUT).pollInterval(LEASE_TTL.dividedBy(4)).until(() -> {
            store.keepAlive(lease);
            return System.nanoTime() - grantRequested > LEASE_TTL.multipliedBy(2).toNanos();
        });
        assertThat(store.get(key)).isNotNull();

        waitAtMost(LEASE_TIMEOUT).until(() -> store.get(key) == null);
    }

    @Test
    void revokeDeletesTheKeysAtOnce() {
        long lease = store.grantLease(Duration.ofSeconds(60));
        store.create("/registry/events/default/one", bytes("1"), lease);
        KeyValue attachedLater = store.create("/registry/events/default/two", bytes("2"), Lease.NONE);
        store.update("/registry/events/default/two", bytes("2"), attachedLater.modRevision(), lease);
        store.create("/registry/events/default/kept", bytes("3"), Lease.NONE);
        long before = store.currentRevision();
        RecordingListener listener = new RecordingListener();

        try (Watch ignored = store.watch("/registry/events/", 0, listener)) {
            store.revokeLease(lease);

            assertThat(store.get("/registry/events/default/one")).isNull();
            assertThat(store.get("/registry/events/default/two")).isNull();
            assertThat(store.get("/registry/events/default/kept")).isNotNull();
            assertThat(store.currentRevision()).isGreaterThan(before);
            assertThat(listener.awaitEvents(2)).extracting(WatchEvent::key)
                    .containsExactlyInAnyOrder("/registry/events/default/one", "/registry/events/default/two");
        }
        assertThatThrownBy(() -> store.revokeLease(lease)).isInstanceOf(StorageException.LeaseNotFound.class);
    }

    @Test
    void updateWithoutTheLeaseDetachesTheKey() {
        long lease = store.grantLease(Duration.ofSeconds(60));
        KeyValue attached = store.create("/registry/events/default/one", bytes("1"), lease);

        KeyValue detached = store.update("/registry/events/default/one", bytes("2"), attached.modRevision(), Lease.NONE);
        store.revokeLease(lease);

        assertThat(detached.lease()).isEqualTo(Lease.NONE);
        assertSameState(detached, store.get("/registry/events/default/one"));
    }

    @Test
    void unknownLeasesFailWithLeaseNotFound() {
        long unknown = 0x1234_5678_9abcL;

        assertThatThrownBy(() -> store.keepAlive(unknown)).isInstanceOf(StorageException.LeaseNotFound.class);
        assertThatThrownBy(() -> store.revokeLease(unknown)).isInstanceOf(StorageException.LeaseNotFound.class);
        long revision = store.currentRevision();
        assertThatThrownBy(() -> store.create("/registry/events/default/one", bytes("1"), unknown))
                .isInstanceOf(StorageException.LeaseNotFound.class);
        assertThat(store.currentRevision()).isEqualTo(revision);
        assertThat(store.get("/registry/events/default/one")).isNull();
    }

    // ---- helpers ----

    /** Starts a watch expected to fail; a backend may throw from {@code watch} or call {@code onError}. */
    protected StorageException watchFailure(String prefix, long startRevision) {
        RecordingListener listener = new RecordingListener();
        Watch watch;
        try {
            watch = store.watch(prefix, startRevision, listener);
        } catch (StorageException error) {
            return error;
        }
        try {
            waitAtMost(EVENT_TIMEOUT).until(() -> !listener.errors.isEmpty());
            assertThat(listener.events()).isEmpty();
            return listener.errors.getFirst();
        } finally {
            watch.close();
        }
    }

    /** Awaitility polling fast: the default first poll after 100 ms would dominate the suite's run time. */
    protected static ConditionFactory waitAtMost(Duration timeout) {
        return await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10));
    }

    protected static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    protected static List<String> keys(RangeResult result) {
        return result.items().stream().map(KeyValue::key).toList();
    }

    /** Compares every field; {@link KeyValue} is a record over an array, so its equals compares identity. */
    protected static void assertSameState(KeyValue expected, KeyValue actual) {
        assertThat(actual).as("key value").isNotNull();
        assertThat(actual.key()).isEqualTo(expected.key());
        assertThat(actual.value()).as("value of %s", expected.key()).isEqualTo(expected.value());
        assertThat(actual.createRevision()).as("createRevision of %s", expected.key()).isEqualTo(expected.createRevision());
        assertThat(actual.modRevision()).as("modRevision of %s", expected.key()).isEqualTo(expected.modRevision());
        assertThat(actual.version()).as("version of %s", expected.key()).isEqualTo(expected.version());
        assertThat(actual.lease()).as("lease of %s", expected.key()).isEqualTo(expected.lease());
    }

    /** Runs {@code task(thread)} on {@code threads} threads that start together and returns their results. */
    protected static <T> List<T> runConcurrently(int threads, ThreadTask<T> task) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int thread = 0; thread < threads; thread++) {
                int index = thread;
                Callable<T> callable = () -> {
                    start.await();
                    return task.run(index);
                };
                futures.add(executor.submit(callable));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            executor.shutdownNow();
        }
    }

    @FunctionalInterface
    protected interface ThreadTask<T> {
        T run(int thread) throws Exception;
    }

    /**
     * Records what a watch delivers and checks the listener contract on the way: calls never overlap and
     * revisions never go backwards.
     */
    protected static final class RecordingListener implements WatchListener {
        private final List<WatchEvent> events = new CopyOnWriteArrayList<>();
        private final List<Long> progress = new CopyOnWriteArrayList<>();
        final List<StorageException> errors = new CopyOnWriteArrayList<>();
        final AtomicBoolean overlappingCalls = new AtomicBoolean();
        private final AtomicBoolean inCall = new AtomicBoolean();
        private final AtomicReference<String> contractViolation = new AtomicReference<>();

        @Override
        public void onEvents(List<WatchEvent> batch) {
            enter();
            try {
                long last = events.isEmpty() ? 0 : events.getLast().revision();
                for (WatchEvent event : batch) {
                    if (event.revision() < last) {
                        contractViolation.compareAndSet(null, "revision " + event.revision() + " after " + last);
                    }
                    last = event.revision();
                }
                if (batch.isEmpty()) {
                    contractViolation.compareAndSet(null, "empty batch");
                }
                events.addAll(batch);
            } finally {
                inCall.set(false);
            }
        }

        @Override
        public void onProgress(long revision) {
            enter();
            try {
                if (!events.isEmpty() && revision < events.getLast().revision()) {
                    contractViolation.compareAndSet(null, "progress " + revision + " after event " + events.getLast().revision());
                }
                progress.add(revision);
            } finally {
                inCall.set(false);
            }
        }

        /** The revisions of the progress reports so far, checked against the events delivered before each. */
        public List<Long> progress() {
            assertThat(contractViolation.get()).as("watch listener contract").isNull();
            return List.copyOf(progress);
        }

        @Override
        public void onError(StorageException error) {
            enter();
            try {
                errors.add(error);
            } finally {
                inCall.set(false);
            }
        }

        private void enter() {
            if (!inCall.compareAndSet(false, true)) {
                overlappingCalls.set(true);
            }
            if (!errors.isEmpty()) {
                contractViolation.compareAndSet(null, "call after onError");
            }
        }

        public List<WatchEvent> events() {
            assertThat(contractViolation.get()).as("watch listener contract").isNull();
            return List.copyOf(events);
        }

        /** Waits until at least {@code count} events arrived and returns all events received so far. */
        public List<WatchEvent> awaitEvents(int count) {
            waitAtMost(EVENT_TIMEOUT).until(() -> events.size() >= count || !errors.isEmpty());
            assertThat(errors).as("watch errors").isEmpty();
            return events();
        }

        /** Waits until the event at {@code revision} arrived. */
        public void awaitRevision(long revision) {
            awaitUntil(event -> event.revision() >= revision);
        }

        private void awaitUntil(Predicate<WatchEvent> condition) {
            waitAtMost(EVENT_TIMEOUT).until(() -> events.stream().anyMatch(condition) || !errors.isEmpty());
            assertThat(errors).as("watch errors").isEmpty();
        }
    }
}
