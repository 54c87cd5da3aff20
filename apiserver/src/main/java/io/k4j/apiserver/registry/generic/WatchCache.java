package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-memory state of one resource, as upstream's cacher: it lists the storage prefix once, then follows a
 * storage watch, keeping every object (as serialised bytes) and a window of recent events. LIST is served from
 * the objects and WATCH from the window, so neither touches storage.
 *
 * <p>A cache that does not keep objects ({@code keepsObjects} false, for resources upstream serves from etcd:
 * events) keeps only the window: its owner serves GET and LIST from storage, and a watch's initial state is read from
 * storage at the cache's revision.
 *
 * <p>The cache's revision is the last revision it saw for its prefix, so it never claims a state it has not
 * observed. Writes made through this apiserver are noted ({@link #noteWrite}) so that a read after a write waits
 * until the cache has caught up with it (read-your-writes).
 *
 * <p>Thread-safe: one write lock guards state changes and the hand-off of events to watchers, so each watcher
 * receives events in revision order with no gaps or duplicates.
 */
public final class WatchCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WatchCache.class);

    /** At most this many earlier states are kept for paged lists; the oldest goes first. */
    private static final int MAX_PAGED_STATES = 256;
    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();
    private static final int EVENT_TYPES = WatchItem.EventType.values().length;
    /** The fewest ready listeners a notifying thread runs before a change's notifications are spread over more. */
    private static final int MIN_NOTIFY_SLICE = 64;

    private final String prefix;
    private final KeyValueStore storage;
    private final Function<KeyValue, CachedObject> decoder;
    private final int historyCapacity;
    private final int watcherQueueCapacity;
    private final boolean keepsObjects;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Condition advanced = lock.writeLock().newCondition();
    /** Replaced (never changed in place) under the write lock, so a reader may keep a version and walk it unlocked. */
    private volatile PersistentSortedMap<CachedObject> objects = PersistentSortedMap.empty();
    /**
     * Earlier states that paged lists started from, by revision, so that their continued pages are read from the
     * same state. Kept while the event window still covers their revision (as upstream keeps its cache snapshots).
     */
    private final ConcurrentSkipListMap<Long, PersistentSortedMap<CachedObject>> pagedStates = new ConcurrentSkipListMap<>();
    private final ArrayDeque<CacheEvent> history = new ArrayDeque<>();
    private final Set<Watcher> watchers = new LinkedHashSet<>();
    /**
     * The last revision this apiserver wrote under the prefix, shared by every cache of the same storage and prefix: a
     * resource served in two versions (events.k8s.io and core events) has a cache per version over one prefix, and a
     * read through either must see a write made through the other.
     */
    private final AtomicLong lastWriteRevision;
    private static final Map<KeyValueStore, Map<String, AtomicLong>> WRITE_REVISIONS =
            Collections.synchronizedMap(new WeakHashMap<>());
    /**
     * Writes made through this apiserver whose cached form is already known, by key: the event of such a write is
     * taken from here instead of being decoded again, when its stored bytes are the expected ones.
     */
    private final ConcurrentHashMap<String, ExpectedWrite> expectedWrites = new ConcurrentHashMap<>();
    /** Deletes made through this apiserver not yet seen, by key: the storage SPI does not report a delete's revision. */
    private final ConcurrentHashMap<String, Long> pendingDeletes = new ConcurrentHashMap<>();
    // Written under the write lock; volatile so that fresh-enough reads can skip the lock.
    private volatile long revision;
    private long windowStart;
    private volatile boolean ready;
    private Watch storageWatch;
    private volatile boolean closed;

    /**
     * @param prefix the storage prefix of the resource
     * @param decoder turns a stored key into its cached form (called outside the lock)
     * @param historyCapacity how many recent events a watch can resume from
     * @param watcherQueueCapacity how many undelivered events a watcher may hold before it is ended
     * @param keepsObjects whether the cache keeps the current objects (for GET and LIST) or only its window of events
     */
    public WatchCache(String prefix, KeyValueStore storage, Function<KeyValue, CachedObject> decoder, int historyCapacity, int watcherQueueCapacity,
            boolean keepsObjects) {
        this.prefix = requireNonNull(prefix, "prefix is null");
        this.storage = requireNonNull(storage, "storage is null");
        this.lastWriteRevision = WRITE_REVISIONS.computeIfAbsent(storage, key -> new ConcurrentHashMap<>())
                .computeIfAbsent(prefix, key -> new AtomicLong());
        this.decoder = requireNonNull(decoder, "decoder is null");
        if (historyCapacity < 1 || watcherQueueCapacity < 1) {
            throw new IllegalArgumentException("capacities must be positive");
        }
        this.historyCapacity = historyCapacity;
        this.watcherQueueCapacity = watcherQueueCapacity;
        this.keepsObjects = keepsObjects;
    }

    /** A cache that keeps the current objects. */
    public WatchCache(String prefix, KeyValueStore storage, Function<KeyValue, CachedObject> decoder, int historyCapacity, int watcherQueueCapacity) {
        this(prefix, storage, decoder, historyCapacity, watcherQueueCapacity, true);
    }

    /** Whether GET and LIST can be served from this cache ({@link #get}, {@link #list}, {@link #page}). */
    public boolean keepsObjects() {
        return keepsObjects;
    }

    /** Lists the prefix (when it keeps objects) and starts following it. */
    public void start() {
        List<CachedObject> decoded = new ArrayList<>();
        long loadedRevision;
        if (keepsObjects) {
            RangeResult all = storage.range(RangeRequest.prefix(prefix));
            for (KeyValue keyValue : all.items()) {
                decoded.add(decoder.apply(keyValue));
            }
            loadedRevision = all.revision();
        } else {
            loadedRevision = storage.currentRevision();
        }
        List<Watcher> ended;
        lock.writeLock().lock();
        try {
            PersistentSortedMap<CachedObject> loaded = PersistentSortedMap.empty();
            for (CachedObject object : decoded) {
                loaded = loaded.put(object.key(), object);
            }
            objects = loaded;
            history.clear();
            pagedStates.clear();
            pendingDeletes.clear();
            expectedWrites.clear();
            revision = Math.max(revision, loadedRevision);
            windowStart = revision;
            ready = true;
            ended = new ArrayList<>(watchers);
            watchers.clear();
            advanced.signalAll();
        } finally {
            lock.writeLock().unlock();
        }
        ended.forEach(Watcher::end);
        storageWatch = storage.watch(prefix, loadedRevision + 1, new Listener());
    }

    @Override
    public void close() {
        closed = true;
        Watch watch = storageWatch;
        if (watch != null) {
            watch.close();
        }
        List<Watcher> ended;
        lock.writeLock().lock();
        try {
            ended = new ArrayList<>(watchers);
            watchers.clear();
        } finally {
            lock.writeLock().unlock();
        }
        ended.forEach(Watcher::end);
    }

    /** The last revision the cache observed. */
    public long revision() {
        return revision;
    }

    /** Records a write this apiserver made, so reads wait until the cache has seen it. */
    public void noteWrite(long writeRevision) {
        lastWriteRevision.accumulateAndGet(writeRevision, Math::max);
    }

    /**
     * Announces a write this apiserver is about to make of {@code value} under {@code key}: when the storage event
     * carries exactly these bytes, the cached form is {@code cachedForm} applied to the event's revision, with no
     * decoding. Call {@link #forgetWrite} when the write fails.
     */
    public ExpectedWrite expectWrite(String key, byte[] value, LongFunction<CachedObject> cachedForm) {
        ExpectedWrite expected = new ExpectedWrite(value, cachedForm);
        expectedWrites.put(key, expected);
        return expected;
    }

    /** Withdraws an announced write that did not happen. */
    public void forgetWrite(String key, ExpectedWrite expected) {
        expectedWrites.remove(key, expected);
    }

    /** A write announced with {@link #expectWrite}. Immutable. */
    public static final class ExpectedWrite {
        private final byte[] value;
        private final LongFunction<CachedObject> cachedForm;

        private ExpectedWrite(byte[] value, LongFunction<CachedObject> cachedForm) {
            this.value = requireNonNull(value, "value is null");
            this.cachedForm = requireNonNull(cachedForm, "cachedForm is null");
        }
    }

    /** The cached form of a stored key announced by {@link #expectWrite} when its bytes are the stored ones, else null. */
    private CachedObject announcedForm(KeyValue keyValue) {
        ExpectedWrite expected = expectedWrites.get(keyValue.key());
        if (expected != null && Arrays.equals(expected.value, keyValue.value())) {
            expectedWrites.remove(keyValue.key(), expected);
            return expected.cachedForm.apply(keyValue.modRevision());
        }
        return null;
    }

    /**
     * Records a delete this apiserver made of the key whose last mod revision was {@code lastModRevision}, so
     * reads wait until the cache has seen it.
     */
    public void noteDelete(String key, long lastModRevision) {
        if (!keepsObjects) {
            return; // its owner reads from storage, which has the delete already
        }
        lock.readLock().lock();
        try {
            CachedObject cached = objects.get(key);
            if (cached != null && cached.revision() <= lastModRevision) {
                pendingDeletes.merge(key, lastModRevision, Math::max);
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Waits until the cache has seen every write this apiserver made; false on timeout. */
    public boolean waitForOwnWrites(Duration timeout) {
        long wanted = lastWriteRevision.get();
        if (ready && revision >= wanted && pendingDeletes.isEmpty()) {
            return true;
        }
        long remaining = timeout.toNanos();
        lock.writeLock().lock();
        try {
            while ((!ready || revision < wanted || !pendingDeletes.isEmpty()) && remaining > 0) {
                remaining = advanced.awaitNanos(remaining);
            }
            return ready && revision >= wanted && pendingDeletes.isEmpty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Waits until the cache has seen {@code wanted}; false on timeout. */
    public boolean waitForRevision(long wanted, Duration timeout) {
        if (ready && revision >= wanted) {
            return true;
        }
        long remaining = timeout.toNanos();
        lock.writeLock().lock();
        try {
            while ((!ready || revision < wanted) && remaining > 0) {
                remaining = advanced.awaitNanos(remaining);
            }
            return ready && revision >= wanted;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The object under {@code key}, or null. */
    public CachedObject get(String key) {
        checkKeepsObjects();
        return objects.get(key);
    }

    private void checkKeepsObjects() {
        if (!keepsObjects) {
            throw new IllegalStateException("the watch cache of " + prefix + " keeps no objects: read them from storage");
        }
    }

    /** A consistent snapshot of the objects under {@code keyPrefix} that match {@code filter}, in key order. */
    public Snapshot list(String keyPrefix, Predicate<CachedObject> filter) {
        checkKeepsObjects();
        State state = current();
        String end = rangeEnd(keyPrefix);
        List<CachedObject> items = new ArrayList<>(state.objects().count(keyPrefix, end));
        for (Iterator<Map.Entry<String, CachedObject>> iterator = state.objects().iteratorFrom(keyPrefix); iterator.hasNext(); ) {
            Map.Entry<String, CachedObject> entry = iterator.next();
            if (entry.getKey().compareTo(end) >= 0) {
                break;
            }
            if (filter.test(entry.getValue())) {
                items.add(entry.getValue());
            }
        }
        return new Snapshot(state.revision(), items);
    }

    /** The objects of a list and the revision they are the state of. */
    public record Snapshot(long revision, List<CachedObject> items) {
        public Snapshot {
            items = List.copyOf(items);
        }
    }

    /**
     * One page of a paged list, read from the cache's state at {@code atRevision} (0 for its current state), starting
     * at {@code startKey} (empty for the start of {@code keyPrefix}): at most {@code limit} objects that match
     * {@code filter}. When more keys follow, the state is kept so that the next page reads the same state.
     *
     * @return the page, or empty when the cache does not hold the state at that revision
     */
    public Optional<Page> page(long atRevision, String keyPrefix, String startKey, long limit, Predicate<CachedObject> filter) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
        checkKeepsObjects();
        State state = atRevision == 0 ? current() : stateAt(atRevision);
        if (state == null) {
            return Optional.empty();
        }
        String end = rangeEnd(keyPrefix);
        String from = startKey.compareTo(keyPrefix) > 0 ? startKey : keyPrefix;
        List<CachedObject> items = new ArrayList<>((int) Math.min(limit, 1_024));
        String lastKey = null;
        Iterator<Map.Entry<String, CachedObject>> iterator = state.objects().iteratorFrom(from);
        while (items.size() < limit && iterator.hasNext()) {
            Map.Entry<String, CachedObject> entry = iterator.next();
            if (entry.getKey().compareTo(end) >= 0) {
                break;
            }
            lastKey = entry.getKey();
            if (filter.test(entry.getValue())) {
                items.add(entry.getValue());
            }
        }
        long remaining = lastKey == null ? 0 : state.objects().count(lastKey + "\0", end);
        if (remaining > 0) {
            keep(state);
        }
        return Optional.of(new Page(state.revision(), items, lastKey, remaining));
    }

    /**
     * One page of a paged list.
     *
     * @param revision the revision of the state the page was read from
     * @param items the matching objects in key order
     * @param lastKey the last key the page looked at (matching or not), null when it looked at none
     * @param remainingKeys how many keys under the prefix follow {@code lastKey}, whether they match or not
     */
    public record Page(long revision, List<CachedObject> items, String lastKey, long remainingKeys) {
        public Page {
            items = List.copyOf(items);
        }
    }

    /** The cache's objects at one revision. */
    private record State(long revision, PersistentSortedMap<CachedObject> objects) {}

    private State current() {
        lock.readLock().lock();
        try {
            return new State(revision, objects);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The state at {@code wanted}: the current one when the cache is there, else one kept for paged lists, else null. */
    private State stateAt(long wanted) {
        lock.readLock().lock();
        try {
            if (ready && wanted == revision) {
                return new State(revision, objects);
            }
            PersistentSortedMap<CachedObject> kept = pagedStates.get(wanted);
            return kept == null ? null : new State(wanted, kept);
        } finally {
            lock.readLock().unlock();
        }
    }

    private void keep(State state) {
        lock.readLock().lock();
        try {
            // A state older than the event window is not kept: it would pin objects long since replaced.
            if (ready && state.revision() >= windowStart) {
                pagedStates.putIfAbsent(state.revision(), state.objects());
                while (pagedStates.size() > MAX_PAGED_STATES) {
                    pagedStates.pollFirstEntry();
                }
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    /** How many earlier states are kept for paged lists (for tests and metrics). */
    int pagedStateCount() {
        return pagedStates.size();
    }

    private static String rangeEnd(String keyPrefix) {
        return keyPrefix + Character.MAX_VALUE;
    }

    /**
     * Watches changes after {@code afterRevision}.
     *
     * @throws StatusException 410 Gone when the window no longer holds the events after that revision
     */
    public Watcher watchFrom(long afterRevision, Predicate<CachedObject> filter) {
        lock.writeLock().lock();
        try {
            if (afterRevision < windowStart) {
                throw StatusException.expired("too old resource version: " + afterRevision + " (" + (windowStart + 1) + ")");
            }
            // Events up to the requested revision that the cache has yet to see are skipped when they arrive.
            Watcher watcher = new Watcher(filter, afterRevision);
            for (CacheEvent event : history) {
                if (event.revision() > afterRevision) {
                    WatchItem item = watcher.itemFor(event);
                    if (item != null) {
                        watcher.queue.add(item);
                    }
                }
            }
            watchers.add(watcher);
            return watcher;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Watches from the current state: first an ADDED event per matching object, then (when asked) a bookmark
     * marking the end of those, then every later change.
     */
    public Watcher watchWithInitialState(Predicate<CachedObject> filter, boolean initialEventsEndBookmark, String keyPrefix) {
        if (!keepsObjects) {
            return watchWithInitialStateFromStorage(filter, initialEventsEndBookmark, keyPrefix);
        }
        lock.writeLock().lock();
        try {
            Watcher watcher = new Watcher(filter, revision);
            String end = rangeEnd(keyPrefix);
            for (Iterator<Map.Entry<String, CachedObject>> iterator = objects.iteratorFrom(keyPrefix); iterator.hasNext(); ) {
                Map.Entry<String, CachedObject> entry = iterator.next();
                if (entry.getKey().compareTo(end) >= 0) {
                    break;
                }
                if (filter.test(entry.getValue())) {
                    watcher.queue.add(new WatchItem.Event(WatchItem.EventType.ADDED, entry.getValue()));
                }
            }
            if (initialEventsEndBookmark) {
                watcher.queue.add(new WatchItem.Bookmark(revision, true));
            }
            watchers.add(watcher);
            return watcher;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * As {@link #watchWithInitialState}, the initial state read from storage at the cache's revision. The watcher is
     * registered first, holding back the changes that arrive while storage is read, so that none is missed and the
     * cache's changes are not held up by the read.
     */
    private Watcher watchWithInitialStateFromStorage(Predicate<CachedObject> filter, boolean initialEventsEndBookmark, String keyPrefix) {
        Watcher watcher;
        long at;
        lock.writeLock().lock();
        try {
            at = revision;
            watcher = new Watcher(filter, at);
            watcher.heldBack = new ArrayList<>();
            watchers.add(watcher);
        } finally {
            lock.writeLock().unlock();
        }
        List<WatchItem> initial = new ArrayList<>();
        try {
            for (KeyValue keyValue : storage.range(new RangeRequest(keyPrefix, "", 0, at)).items()) {
                CachedObject object = decoder.apply(keyValue);
                if (filter.test(object)) {
                    initial.add(new WatchItem.Event(WatchItem.EventType.ADDED, object));
                }
            }
        } catch (RuntimeException e) {
            watcher.close();
            throw e;
        }
        if (initialEventsEndBookmark) {
            initial.add(new WatchItem.Bookmark(at, true));
        }
        lock.writeLock().lock();
        try {
            if (watchers.contains(watcher)) { // else ended meanwhile (the cache reloaded), and its end is queued
                watcher.queue.addAll(initial);
                watcher.queue.addAll(watcher.heldBack);
            }
            watcher.heldBack = null;
        } finally {
            lock.writeLock().unlock();
        }
        watcher.notifyReady();
        return watcher;
    }

    /** How many watchers are registered. */
    public int watcherCount() {
        lock.readLock().lock();
        try {
            return watchers.size();
        } finally {
            lock.readLock().unlock();
        }
    }

    private void apply(List<Decoded> changes) {
        List<Watcher> ended = new ArrayList<>();
        List<Watcher> woken = new ArrayList<>();
        List<CacheEvent> events = new ArrayList<>(changes.size());
        lock.writeLock().lock();
        try {
            PersistentSortedMap<CachedObject> state = objects;
            long newRevision = revision;
            for (Decoded change : changes) {
                CachedObject previous = null;
                KeyValue storedPrevious = null;
                if (keepsObjects) {
                    PersistentSortedMap.Changed<CachedObject> changed = state.change(change.key(), change.deleted() ? null : change.object());
                    previous = changed.previous();
                    state = changed.map();
                    if (change.deleted() && previous == null) {
                        continue; // a delete of a key the cache never held
                    }
                } else {
                    storedPrevious = change.storedPrevious();
                }
                boolean replaced = previous != null || storedPrevious != null;
                WatchItem.EventType type = change.deleted() ? WatchItem.EventType.DELETED : replaced ? WatchItem.EventType.MODIFIED : WatchItem.EventType.ADDED;
                CacheEvent event = new CacheEvent(type, change.object(), change.stored(), previous, storedPrevious, change.revision());
                events.add(event);
                history.addLast(event);
                if (history.size() > historyCapacity) {
                    windowStart = history.removeFirst().revision();
                    pagedStates.headMap(windowStart).clear();
                }
                newRevision = Math.max(newRevision, change.revision());
            }
            // The objects first, then the revision and the pending deletes: a read that skips the lock once they cover its
            // own writes (waitForOwnWrites) must find those writes among the objects. Watchers hear of the changes only
            // after that, so that a client reading what an event told it finds it too.
            objects = state;
            revision = newRevision;
            for (Decoded change : changes) {
                if (change.deleted()) {
                    pendingDeletes.remove(change.key());
                }
            }
            // Per event, one item per type a watcher may see it as, shared by all of them (see WatchItem.Event).
            WatchItem.Event[][] shared = new WatchItem.Event[events.size()][EVENT_TYPES];
            for (Watcher watcher : watchers) {
                boolean offered = false;
                for (int i = 0; i < events.size(); i++) {
                    WatchItem item = watcher.itemFor(events.get(i), shared[i]);
                    if (item == null) {
                        continue;
                    }
                    if (!watcher.offer(item)) {
                        ended.add(watcher);
                        break;
                    }
                    offered = true;
                }
                if (offered && watcher.readyListener != null) {
                    woken.add(watcher);
                }
            }
            ended.forEach(watchers::remove);
            advanced.signalAll();
        } finally {
            lock.writeLock().unlock();
        }
        notifyReady(woken);
        for (Watcher watcher : ended) {
            LOG.info("ending a watch on {}: the client does not keep up", prefix);
            watcher.end();
        }
    }

    /**
     * Runs the ready listeners of {@code woken} on virtual threads, one per slice of at least {@link #MIN_NOTIFY_SLICE}
     * and at most one per processor: a listener sends to the network, which must hold up neither the cache's next
     * changes (and the writers waiting for them) nor, for a change to a thousand watchers, use one core only. A
     * watcher's events stay in order whichever thread sends them, as they were queued in order under the lock.
     */
    private static void notifyReady(List<Watcher> woken) {
        if (woken.isEmpty()) {
            return;
        }
        int slices = Math.max(1, Math.min(PROCESSORS, woken.size() / MIN_NOTIFY_SLICE));
        int sliceSize = (woken.size() + slices - 1) / slices;
        for (int from = 0; from < woken.size(); from += sliceSize) {
            List<Watcher> slice = woken.subList(from, Math.min(from + sliceSize, woken.size()));
            Thread.ofVirtual().name("watch-notify").start(() -> slice.forEach(Watcher::notifyReady));
        }
    }

    private void restart(StorageException cause) {
        if (closed) {
            return;
        }
        LOG.warn("watch on {} failed, reloading the cache: {}", prefix, cause.getMessage());
        Thread.ofVirtual().name("watch-cache-reload " + prefix).start(() -> {
            long delayMillis = 100;
            while (!closed) {
                try {
                    start();
                    return;
                } catch (StorageException e) {
                    LOG.warn("reloading the cache of {} failed: {}", prefix, e.getMessage());
                    try {
                        Thread.sleep(delayMillis);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    delayMillis = Math.min(delayMillis * 2, 5_000);
                }
            }
        });
    }

    /**
     * One change in the window. The state it replaced, which a watcher with a selector needs to tell a MODIFIED from an
     * ADDED or DELETED, comes from the kept objects or, for a cache that keeps none, is decoded from the storage event
     * when a watcher first asks; so is such a cache's changed object, unless this apiserver announced its write. Used
     * under the cache's write lock only, so each is decoded at most once.
     */
    private final class CacheEvent {
        private final WatchItem.EventType type;
        private final long revision;
        private CachedObject object;
        private KeyValue stored;
        private CachedObject previous;
        private KeyValue storedPrevious;

        /**
         * @param object the changed object in cached form, or null to decode it from {@code stored} when first asked
         * @param storedPrevious the state a put replaced, decoded when first asked; null where {@code previous} is given
         */
        CacheEvent(WatchItem.EventType type, CachedObject object, KeyValue stored, CachedObject previous, KeyValue storedPrevious, long revision) {
            this.type = type;
            this.object = object;
            this.stored = stored;
            this.previous = previous;
            this.storedPrevious = storedPrevious;
            this.revision = revision;
        }

        WatchItem.EventType type() {
            return type;
        }

        CachedObject object() {
            if (object == null) {
                object = decoder.apply(stored);
                stored = null;
            }
            return object;
        }

        long revision() {
            return revision;
        }

        CachedObject previous() {
            if (previous == null && storedPrevious != null) {
                previous = decoder.apply(storedPrevious);
                storedPrevious = null;
            }
            return previous;
        }
    }

    /**
     * A storage change: {@code object} in cached form, or null where a cache without objects decodes {@code stored} only
     * once a watcher asks for it; {@code storedPrevious} is the state a put replaced, null for a new key or a delete.
     */
    private record Decoded(String key, CachedObject object, KeyValue stored, boolean deleted, long revision, KeyValue storedPrevious) {}

    private final class Listener implements WatchListener {
        @Override
        public void onEvents(List<WatchEvent> events) {
            if (closed) {
                return;
            }
            List<Decoded> changes = new ArrayList<>(events.size());
            for (WatchEvent event : events) {
                switch (event) {
                    case WatchEvent.Put put -> changes.add(change(put.key(), put.current(), false, put.revision(), put.previous()));
                    case WatchEvent.Delete delete -> {
                        KeyValue last = delete.previous();
                        KeyValue atDelete = new KeyValue(last.key(), last.value(), last.createRevision(), delete.revision(), last.version(), last.lease());
                        changes.add(change(delete.key(), atDelete, true, delete.revision(), null));
                    }
                }
            }
            apply(changes);
        }

        /**
         * A change with its object announced or decoded now, except in a cache without objects, which decodes it when a
         * watcher first needs it: events, written once per scheduled pod, are mostly watched by no one.
         */
        private Decoded change(String key, KeyValue stored, boolean deleted, long revision, KeyValue storedPrevious) {
            CachedObject announced = deleted ? null : announcedForm(stored);
            if (announced != null) {
                return new Decoded(key, announced, null, deleted, revision, storedPrevious);
            }
            if (!keepsObjects) {
                return new Decoded(key, null, stored, deleted, revision, storedPrevious);
            }
            return new Decoded(key, decoder.apply(stored), null, deleted, revision, storedPrevious);
        }

        @Override
        public void onProgress(long progressRevision) {
            if (!closed) {
                advanceTo(progressRevision);
            }
        }

        @Override
        public void onError(StorageException error) {
            restart(error);
        }
    }

    /**
     * Nothing under the prefix changed up to {@code progressRevision}, so the cached state is the state there too and
     * reads say so: a quiet resource's list then carries a recent revision instead of its last change's, which the
     * compaction of other resources' history would make too old for a continue token or an exact read.
     */
    private void advanceTo(long progressRevision) {
        lock.writeLock().lock();
        try {
            if (ready && progressRevision > revision) {
                revision = progressRevision;
                advanced.signalAll();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * One client's watch: a queue of items the serving thread drains, either blocking in {@link #poll} or, with a
     * {@linkplain #onReady ready listener}, when told that items arrived. Ended when the client falls more than the
     * queue capacity behind (as upstream ends slow watchers) or the cache reloads. Thread-safe.
     */
    public final class Watcher implements AutoCloseable {
        private final LinkedBlockingQueue<WatchItem> queue = new LinkedBlockingQueue<>();
        /** Changes held back while the initial state is read from storage; guarded by the cache's write lock. */
        private List<WatchItem> heldBack;
        private final Predicate<CachedObject> filter;
        private final long afterRevision;
        private volatile Runnable readyListener;

        private Watcher(Predicate<CachedObject> filter, long afterRevision) {
            this.filter = filter;
            this.afterRevision = afterRevision;
        }

        /** The next item if one is queued, else null; never waits. */
        public WatchItem pollNow() {
            return queue.poll();
        }

        /** Whether an item is queued. */
        public boolean hasQueued() {
            return !queue.isEmpty();
        }

        /** The next item, or null when none arrives within {@code timeout}. */
        public WatchItem poll(Duration timeout) throws InterruptedException {
            return queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }

        /** The next item, waiting for as long as it takes: for a serving thread whose watch's end is queued on time. */
        public WatchItem take() throws InterruptedException {
            return queue.take();
        }

        /**
         * Runs {@code listener} whenever items were queued, never under the cache's lock (for the cache's changes on a
         * virtual thread of its own), and once now: the listener drains with {@link #pollNow}. A serving thread then needs not wait
         * in {@link #poll} for every event; with a thousand watchers, waking a thread for each costs more than the
         * event's write.
         */
        public void onReady(Runnable listener) {
            readyListener = requireNonNull(listener, "listener is null");
            listener.run();
        }

        /** Queues a bookmark at the cache's revision behind the events already queued. */
        public void requestBookmark() {
            boolean queued = false;
            lock.writeLock().lock();
            try {
                if (watchers.contains(this)) {
                    // A watch from a revision the cache has not reached yet is already known to be that far.
                    WatchItem.Bookmark bookmark = new WatchItem.Bookmark(Math.max(revision, afterRevision), false);
                    if (heldBack != null) {
                        heldBack.add(bookmark); // behind the initial state still being read
                    } else {
                        queue.add(bookmark);
                        queued = true;
                    }
                }
            } finally {
                lock.writeLock().unlock();
            }
            if (queued) {
                notifyReady();
            }
        }

        @Override
        public void close() {
            lock.writeLock().lock();
            try {
                watchers.remove(this);
            } finally {
                lock.writeLock().unlock();
            }
        }

        private boolean offer(WatchItem item) {
            if (heldBack != null) {
                heldBack.add(item);
                return true;
            }
            if (queue.size() >= watcherQueueCapacity) {
                return false;
            }
            queue.add(item);
            return true;
        }

        /** Ends the watch: {@link WatchItem.Ended} is queued behind the items already queued. */
        public void end() {
            queue.add(new WatchItem.Ended());
            notifyReady();
        }

        private void notifyReady() {
            Runnable listener = readyListener;
            if (listener != null) {
                listener.run();
            }
        }

        /** The item this watcher sees for an event: a change of whether an object matches is an ADDED or DELETED. */
        private WatchItem itemFor(CacheEvent event) {
            return itemFor(event, new WatchItem.Event[EVENT_TYPES]);
        }

        /** As {@link #itemFor(CacheEvent)}, taking the event of each type from {@code shared}, filled as needed. */
        private WatchItem itemFor(CacheEvent event, WatchItem.Event[] shared) {
            if (event.revision() <= afterRevision) {
                return null;
            }
            boolean matchesNow = filter.test(event.object());
            WatchItem.EventType type = switch (event.type()) {
                case ADDED -> matchesNow ? WatchItem.EventType.ADDED : null;
                case DELETED -> matchesNow ? WatchItem.EventType.DELETED : null;
                case MODIFIED -> {
                    boolean matchedBefore = filter.test(event.previous());
                    if (matchesNow && matchedBefore) {
                        yield WatchItem.EventType.MODIFIED;
                    } else if (matchesNow) {
                        yield WatchItem.EventType.ADDED;
                    } else if (matchedBefore) {
                        yield WatchItem.EventType.DELETED;
                    } else {
                        yield null;
                    }
                }
            };
            if (type == null) {
                return null;
            }
            WatchItem.Event item = shared[type.ordinal()];
            if (item == null) {
                item = new WatchItem.Event(type, event.object());
                shared[type.ordinal()] = item;
            }
            return item;
        }
    }
}
