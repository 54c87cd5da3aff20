package io.k4j.apiserver.testing;

import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A {@link KeyValueStore} in memory with etcd's revision, history and watch semantics, for apiserver tests
 * until a real backend is on the test classpath. Keeps the full history (compaction drops it). Watch events
 * are delivered on one thread per watch, as a real backend does. Thread-safe.
 */
public final class InMemoryKeyValueStore implements KeyValueStore {
    private final TreeMap<String, KeyValue> current = new TreeMap<>();
    private final List<WatchEvent> history = new ArrayList<>();
    private final List<InMemoryWatch> watches = new ArrayList<>();
    private long revision;
    private long compactedRevision;

    @Override
    public synchronized long currentRevision() {
        return revision;
    }

    @Override
    public synchronized long compactedRevision() {
        return compactedRevision;
    }

    @Override
    public synchronized KeyValue get(String key) {
        return current.get(key);
    }

    @Override
    public synchronized RangeResult range(RangeRequest request) {
        long at = request.revision() == 0 ? revision : request.revision();
        if (request.revision() != 0 && request.revision() < compactedRevision) {
            throw new StorageException.Compacted(request.revision(), compactedRevision);
        }
        if (at > revision) {
            throw new StorageException.FutureRevision(at, revision);
        }
        TreeMap<String, KeyValue> state = at == revision ? current : stateAt(at);
        String from = request.startKey().isEmpty() ? request.prefix() : request.startKey();
        List<KeyValue> items = new ArrayList<>();
        long count = 0;
        boolean more = false;
        for (Map.Entry<String, KeyValue> entry : state.tailMap(from, true).entrySet()) {
            if (!entry.getKey().startsWith(request.prefix())) {
                break;
            }
            count++;
            if (request.limit() > 0 && items.size() >= request.limit()) {
                more = true;
                continue;
            }
            items.add(entry.getValue());
        }
        return new RangeResult(items, more, count, at);
    }

    private TreeMap<String, KeyValue> stateAt(long at) {
        TreeMap<String, KeyValue> state = new TreeMap<>();
        for (WatchEvent event : history) {
            if (event.revision() > at) {
                break;
            }
            switch (event) {
                case WatchEvent.Put put -> state.put(put.key(), put.current());
                case WatchEvent.Delete delete -> state.remove(delete.key());
            }
        }
        return state;
    }

    @Override
    public synchronized long count(String prefix) {
        return current.subMap(prefix, prefix + Character.MAX_VALUE).size();
    }

    @Override
    public synchronized KeyValue create(String key, byte[] value, long lease) {
        if (current.containsKey(key)) {
            throw new StorageException.KeyExists(key);
        }
        revision++;
        KeyValue created = new KeyValue(key, value.clone(), revision, revision, 1, lease);
        current.put(key, created);
        publish(new WatchEvent.Put(created, null));
        return created;
    }

    @Override
    public synchronized KeyValue update(String key, byte[] value, long expectedModRevision, long lease) {
        KeyValue existing = current.get(key);
        if (existing == null) {
            throw new StorageException.KeyNotFound(key);
        }
        if (existing.modRevision() != expectedModRevision) {
            throw new StorageException.Conflict(existing);
        }
        revision++;
        KeyValue updated = new KeyValue(key, value.clone(), existing.createRevision(), revision, existing.version() + 1, lease);
        current.put(key, updated);
        publish(new WatchEvent.Put(updated, existing));
        return updated;
    }

    @Override
    public synchronized KeyValue delete(String key, long expectedModRevision) {
        KeyValue existing = current.get(key);
        if (existing == null) {
            throw new StorageException.KeyNotFound(key);
        }
        if (expectedModRevision != 0 && existing.modRevision() != expectedModRevision) {
            throw new StorageException.Conflict(existing);
        }
        revision++;
        current.remove(key);
        publish(new WatchEvent.Delete(existing, revision));
        return existing;
    }

    private void publish(WatchEvent event) {
        history.add(event);
        for (InMemoryWatch watch : watches) {
            if (event.key().startsWith(watch.prefix)) {
                watch.deliver(List.of(event));
            }
        }
    }

    @Override
    public synchronized Watch watch(String prefix, long startRevision, WatchListener listener) {
        if (startRevision != 0 && startRevision < compactedRevision) {
            throw new StorageException.Compacted(startRevision, compactedRevision);
        }
        InMemoryWatch watch = new InMemoryWatch(prefix, listener);
        List<WatchEvent> replay = new ArrayList<>();
        if (startRevision != 0) {
            for (WatchEvent event : history) {
                if (event.revision() >= startRevision && event.key().startsWith(prefix)) {
                    replay.add(event);
                }
            }
        }
        if (!replay.isEmpty()) {
            watch.deliver(replay);
        }
        watches.add(watch);
        return watch;
    }

    @Override
    public synchronized void compact(long compactRevision) {
        compactedRevision = Math.max(compactedRevision, compactRevision);
        history.removeIf(event -> event.revision() < compactRevision);
    }

    @Override
    public long grantLease(Duration ttl) {
        throw new UnsupportedOperationException("leases are not needed by these tests");
    }

    @Override
    public void keepAlive(long lease) {
        throw new UnsupportedOperationException("leases are not needed by these tests");
    }

    @Override
    public void revokeLease(long lease) {
        throw new UnsupportedOperationException("leases are not needed by these tests");
    }

    @Override
    public synchronized void close() {
        for (InMemoryWatch watch : List.copyOf(watches)) {
            watch.close();
        }
    }

    private final class InMemoryWatch implements Watch {
        private final String prefix;
        private final WatchListener listener;
        private final ExecutorService executor = Executors.newSingleThreadExecutor(Thread.ofVirtual().factory());
        private volatile boolean closed;

        InMemoryWatch(String prefix, WatchListener listener) {
            this.prefix = prefix;
            this.listener = listener;
        }

        void deliver(List<WatchEvent> events) {
            executor.execute(() -> {
                if (!closed) {
                    listener.onEvents(events);
                }
            });
        }

        @Override
        public void close() {
            closed = true;
            synchronized (InMemoryKeyValueStore.this) {
                watches.remove(this);
            }
            executor.shutdown();
            try {
                executor.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
