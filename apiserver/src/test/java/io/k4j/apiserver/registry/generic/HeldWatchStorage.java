package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.time.Duration;
import java.util.List;

/**
 * Storage whose watches can be held: while held, each watch's delivery waits, so a watch cache over it falls behind
 * the writes that other stores make to the same storage, as a second apiserver's cache can. Everything else is
 * the delegate's.
 */
final class HeldWatchStorage implements KeyValueStore {
    private final KeyValueStore delegate;
    private final Object lock = new Object();
    private boolean held;

    HeldWatchStorage(KeyValueStore delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    void hold() {
        synchronized (lock) {
            held = true;
        }
    }

    void release() {
        synchronized (lock) {
            held = false;
            lock.notifyAll();
        }
    }

    @Override
    public Watch watch(String prefix, long startRevision, WatchListener listener) {
        return delegate.watch(prefix, startRevision, new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> events) {
                synchronized (lock) {
                    while (held) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }
                listener.onEvents(events);
            }

            @Override
            public void onError(StorageException error) {
                listener.onError(error);
            }
        });
    }

    @Override
    public long currentRevision() {
        return delegate.currentRevision();
    }

    @Override
    public long compactedRevision() {
        return delegate.compactedRevision();
    }

    @Override
    public KeyValue get(String key) {
        return delegate.get(key);
    }

    @Override
    public RangeResult range(RangeRequest request) {
        return delegate.range(request);
    }

    @Override
    public long count(String prefix) {
        return delegate.count(prefix);
    }

    @Override
    public KeyValue create(String key, byte[] value, long lease) {
        return delegate.create(key, value, lease);
    }

    @Override
    public KeyValue update(String key, byte[] value, long expectedModRevision, long lease) {
        return delegate.update(key, value, expectedModRevision, lease);
    }

    @Override
    public KeyValue delete(String key, long expectedModRevision) {
        return delegate.delete(key, expectedModRevision);
    }

    @Override
    public void compact(long revision) {
        delegate.compact(revision);
    }

    @Override
    public long grantLease(Duration ttl) {
        return delegate.grantLease(ttl);
    }

    @Override
    public void keepAlive(long lease) {
        delegate.keepAlive(lease);
    }

    @Override
    public void revokeLease(long lease) {
        delegate.revokeLease(lease);
    }

    @Override
    public void close() {
        // The delegate belongs to the test.
    }
}
