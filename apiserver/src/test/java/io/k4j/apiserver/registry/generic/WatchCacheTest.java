package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.k4j.storage.KeyValue;
import io.k4j.storage.Lease;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatchCacheTest {
    private static final String PREFIX = "/registry/things/";
    private SqliteKeyValueStore storage;
    private WatchCache cache;

    @BeforeEach
    void start(@TempDir Path directory) {
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
    }

    @AfterEach
    void stop() {
        if (cache != null) {
            cache.close();
        }
        storage.close();
    }

    private WatchCache startCache(int historyCapacity) {
        cache = new WatchCache(PREFIX, storage, WatchCacheTest::decode, historyCapacity, 1_000);
        cache.start();
        return cache;
    }

    /** A cache that keeps only its window of events, as the events' caches. */
    private WatchCache startCacheWithoutObjects(int historyCapacity) {
        cache = new WatchCache(PREFIX, storage, WatchCacheTest::decode, historyCapacity, 1_000, false);
        cache.start();
        return cache;
    }

    private static List<String> drain(WatchCache.Watcher watcher, int items) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            WatchItem item = watcher.poll(Duration.ofSeconds(10));
            assertThat(item).as("item %d of %d", i + 1, items).isNotNull();
            seen.add(switch (item) {
                case WatchItem.Event event -> event.type() + " " + event.object().name() + "=" + event.object().labels().get("value");
                case WatchItem.Bookmark bookmark -> "BOOKMARK" + (bookmark.initialEventsEnd() ? " initial-events-end" : "");
                default -> item.toString();
            });
        }
        return seen;
    }

    private static CachedObject decode(KeyValue keyValue) {
        String relative = keyValue.key().substring(PREFIX.length());
        String namespace = relative.substring(0, relative.indexOf('/'));
        String name = relative.substring(relative.indexOf('/') + 1);
        String value = new String(keyValue.value(), StandardCharsets.UTF_8);
        return new CachedObject(keyValue.key(), namespace, name, keyValue.modRevision(), keyValue.value(), Map.of("value", value), Map.of());
    }

    private long put(String namespace, String name, String value) {
        String key = PREFIX + namespace + "/" + name;
        KeyValue current = storage.get(key);
        KeyValue written = current == null
                ? storage.create(key, value.getBytes(StandardCharsets.UTF_8), Lease.NONE)
                : storage.update(key, value.getBytes(StandardCharsets.UTF_8), current.modRevision(), Lease.NONE);
        awaitRevision(written.modRevision());
        return written.modRevision();
    }

    private void awaitRevision(long revision) {
        await().atMost(Duration.ofSeconds(10)).until(() -> cache.revision() >= revision);
    }

    @Test
    void aReadAfterItsOwnWriteFindsTheWrite() throws Exception {
        startCache(100);
        int writers = 4;
        int writesEach = 1_000;
        List<String> missed = new CopyOnWriteArrayList<>();
        // Watchers make each applied change take a while between updating the revision and the objects.
        List<WatchCache.Watcher> watchers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            watchers.add(cache.watchFrom(cache.revision(), object -> true));
        }
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int writer = 0; writer < writers; writer++) {
                int id = writer;
                done.add(executor.submit(() -> {
                    for (int i = 0; i < writesEach; i++) {
                        String key = PREFIX + "w" + id + "/thing-" + i;
                        KeyValue written = storage.create(key, "v".getBytes(StandardCharsets.UTF_8), Lease.NONE);
                        cache.noteWrite(written.modRevision());
                        // As GenericStore.get reads: wait for this apiserver's writes, then read the cached objects.
                        assertThat(cache.waitForOwnWrites(Duration.ofSeconds(10))).isTrue();
                        if (cache.get(key) == null) {
                            missed.add(key);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> writer : done) {
                writer.get();
            }
        } finally {
            watchers.forEach(WatchCache.Watcher::close);
        }

        assertThat(missed).as("writes the cache's revision covered but its objects did not hold").isEmpty();
    }

    @Test
    void theWatchersOfAChangeShareOneEventPerTypeTheySeeItAs() throws Exception {
        startCache(100);
        put("a", "thing", "match");
        WatchCache.Watcher all = cache.watchFrom(cache.revision(), object -> true);
        WatchCache.Watcher alsoAll = cache.watchFrom(cache.revision(), object -> true);
        WatchCache.Watcher matching = cache.watchFrom(cache.revision(), object -> object.labels().get("value").equals("match"));

        put("a", "thing", "other");

        WatchItem.Event first = (WatchItem.Event) all.poll(Duration.ofSeconds(10));
        WatchItem.Event second = (WatchItem.Event) alsoAll.poll(Duration.ofSeconds(10));
        WatchItem.Event left = (WatchItem.Event) matching.poll(Duration.ofSeconds(10));
        assertThat(first.type()).isEqualTo(WatchItem.EventType.MODIFIED);
        assertThat(second).isSameAs(first);
        assertThat(left.type()).as("the object left the filter").isEqualTo(WatchItem.EventType.DELETED);
        assertThat(first.jsonLine(event -> new byte[] {1})).isSameAs(second.jsonLine(event -> new byte[] {2}));
        List.of(all, alsoAll, matching).forEach(WatchCache.Watcher::close);
    }

    @Test
    void continuedPagesReadTheStateTheFirstPageWasReadFrom() {
        startCache(100);
        for (int i = 0; i < 7; i++) {
            put("a", "thing-" + i, "v1");
        }
        put("b", "thing-0", "v1");

        WatchCache.Page first = cache.page(0, PREFIX + "a/", "", 3, object -> true).orElseThrow();
        put("a", "thing-3", "v2");
        storage.delete(PREFIX + "a/thing-4", 0);
        put("a", "thing-8", "v1");
        WatchCache.Page second = cache.page(first.revision(), PREFIX + "a/", first.lastKey() + "\0", 3, object -> true).orElseThrow();
        WatchCache.Page third = cache.page(second.revision(), PREFIX + "a/", second.lastKey() + "\0", 3, object -> true).orElseThrow();

        assertThat(first.items()).extracting(CachedObject::name).containsExactly("thing-0", "thing-1", "thing-2");
        assertThat(first.remainingKeys()).isEqualTo(4);
        assertThat(second.revision()).isEqualTo(first.revision());
        assertThat(second.items()).extracting(CachedObject::name).containsExactly("thing-3", "thing-4", "thing-5");
        assertThat(second.items().get(0).labels()).containsEntry("value", "v1");
        assertThat(second.remainingKeys()).isEqualTo(1);
        assertThat(third.items()).extracting(CachedObject::name).containsExactly("thing-6");
        assertThat(third.remainingKeys()).isZero();
        WatchCache.Page now = cache.page(0, PREFIX + "a/", "", 100, object -> true).orElseThrow();
        assertThat(now.items()).extracting(CachedObject::name).containsExactly("thing-0", "thing-1", "thing-2", "thing-3", "thing-5", "thing-6", "thing-8");
    }

    @Test
    void aFilteredPageCountsEveryKeyItLookedAt() {
        startCache(100);
        for (int i = 0; i < 6; i++) {
            put("a", "thing-" + i, i % 3 == 0 ? "match" : "other");
        }

        WatchCache.Page first = cache.page(0, PREFIX, "", 1, object -> object.labels().get("value").equals("match")).orElseThrow();
        WatchCache.Page second = cache.page(first.revision(), PREFIX, first.lastKey() + "\0", 5, object -> object.labels().get("value").equals("match")).orElseThrow();

        assertThat(first.items()).extracting(CachedObject::name).containsExactly("thing-0");
        assertThat(first.lastKey()).isEqualTo(PREFIX + "a/thing-0");
        assertThat(second.items()).extracting(CachedObject::name).containsExactly("thing-3");
        assertThat(second.lastKey()).isEqualTo(PREFIX + "a/thing-5");
        assertThat(second.remainingKeys()).isZero();
    }

    @Test
    void aStateIsKeptOnlyWhileTheEventWindowCoversIt() {
        startCache(5);
        for (int i = 0; i < 4; i++) {
            put("a", "thing-" + i, "v1");
        }
        WatchCache.Page first = cache.page(0, PREFIX, "", 2, object -> true).orElseThrow();
        assertThat(cache.pagedStateCount()).isEqualTo(1);
        WatchCache.Page last = cache.page(0, PREFIX, "", 10, object -> true).orElseThrow();
        assertThat(last.remainingKeys()).as("a list read in one page keeps no state").isZero();

        put("a", "thing-1", "v2");
        assertThat(cache.page(first.revision(), PREFIX, first.lastKey() + "\0", 2, object -> true)).isPresent();
        for (int i = 0; i < 5; i++) {
            put("a", "thing-1", "v" + (3 + i));
        }

        assertThat(cache.pagedStateCount()).isZero();
        assertThat(cache.page(first.revision(), PREFIX, first.lastKey() + "\0", 2, object -> true)).isEmpty();
        assertThat(cache.page(cache.revision(), PREFIX, "", 2, object -> true)).as("the current state is always there").isPresent();
    }

    @Test
    void aCacheWithoutObjectsTellsSelectedWatchersOfChangesFromStoragesPreviousState() throws Exception {
        startCacheWithoutObjects(100);
        put("a", "thing", "match");
        WatchCache.Watcher matching = cache.watchFrom(cache.revision(), object -> object.labels().get("value").startsWith("match"));

        put("a", "thing", "match-again");
        put("a", "thing", "other");
        put("a", "thing", "match");
        put("a", "new", "match");
        storage.delete(PREFIX + "a/thing", storage.get(PREFIX + "a/thing").modRevision());

        assertThat(drain(matching, 5)).containsExactly(
                "MODIFIED thing=match-again",
                "DELETED thing=other",
                "ADDED thing=match",
                "ADDED new=match",
                "DELETED thing=match");
        assertThatThrownBy(() -> cache.get(PREFIX + "a/new")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cache.list(PREFIX, object -> true)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aCacheWithoutObjectsDecodesAChangeOnlyOnceAWatcherNeedsIt() throws Exception {
        AtomicInteger decoded = new AtomicInteger();
        cache = new WatchCache(PREFIX, storage, keyValue -> {
            decoded.incrementAndGet();
            return decode(keyValue);
        }, 100, 1_000, false);
        cache.start();
        long start = cache.revision();
        put("a", "one", "v1");
        put("a", "one", "v2");
        put("a", "two", "v1");
        storage.delete(PREFIX + "a/two", storage.get(PREFIX + "a/two").modRevision());
        awaitRevision(storage.currentRevision());
        assertThat(decoded).hasValue(0);

        // A watcher from before the changes gets them from the window, each decoded once for all its watchers.
        WatchCache.Watcher first = cache.watchFrom(start, object -> true);
        WatchCache.Watcher second = cache.watchFrom(start, object -> true);
        List<String> expected = List.of("ADDED one=v1", "MODIFIED one=v2", "ADDED two=v1", "DELETED two=v1");
        assertThat(drain(first, 4)).containsExactlyElementsOf(expected);
        assertThat(drain(second, 4)).containsExactlyElementsOf(expected);
        // The four objects, and the state the MODIFIED one replaced, which tells a filter's MODIFIED from its ADDED.
        assertThat(decoded).hasValue(5);

        put("a", "three", "v1");
        assertThat(drain(first, 1)).containsExactly("ADDED three=v1");
        assertThat(decoded).hasValue(6);
    }

    @Test
    void aCacheWithoutObjectsReadsAWatchsInitialStateFromStorageAndMissesNoLaterChange() throws Exception {
        storage.create(PREFIX + "a/before-1", "v1".getBytes(StandardCharsets.UTF_8), Lease.NONE);
        storage.create(PREFIX + "b/before-2", "v1".getBytes(StandardCharsets.UTF_8), Lease.NONE);
        startCacheWithoutObjects(100);
        long afterStart = put("a", "before-1", "v2");

        WatchCache.Watcher watcher = cache.watchWithInitialState(object -> true, true, PREFIX + "a/");
        put("a", "later", "v1");

        assertThat(drain(watcher, 3)).containsExactly("ADDED before-1=v2", "BOOKMARK initial-events-end", "ADDED later=v1");
        assertThat(afterStart).isLessThanOrEqualTo(cache.revision());
    }
}
