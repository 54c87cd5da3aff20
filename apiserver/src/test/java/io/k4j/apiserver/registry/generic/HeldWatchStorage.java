package io.k4j.apiserver.registry.generic;

import io.k4j.storage.ForwardingKeyValueStore;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import java.util.List;

/**
 * Storage whose watches can be held: while held, each watch's delivery waits, so a watch cache over it falls behind
 * the writes that other stores make to the same storage, as a second apiserver's cache can. Everything else is
 * the delegate's.
 */
final class HeldWatchStorage extends ForwardingKeyValueStore {
    private final Object lock = new Object();
    private boolean held;

    HeldWatchStorage(KeyValueStore delegate) {
        super(delegate);
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
}
