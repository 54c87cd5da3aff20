package io.k4j.kubelet.podworkers;

import static java.util.Objects.requireNonNull;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Serializes the syncs of each pod, as upstream's pod workers: {@link #update} asks for a sync of a pod; a pod has at
 * most one sync running, and any number of updates during it cause exactly one more sync afterwards. Different pods
 * sync concurrently on virtual threads. A sync that throws is logged; the next update retries it. Thread-safe.
 */
public final class PodWorkers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PodWorkers.class);

    private final Consumer<String> sync;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("k4j-pod-worker-", 0).factory());
    private final Map<String, Worker> workers = new ConcurrentHashMap<>();

    /** @param sync syncs the pod with the given UID */
    public PodWorkers(Consumer<String> sync) {
        this.sync = requireNonNull(sync, "sync is null");
    }

    /** Asks for a sync of the pod. */
    public void update(String podUid) {
        Worker worker = workers.computeIfAbsent(podUid, Worker::new);
        synchronized (worker) {
            worker.pending = true;
            if (worker.running || executor.isShutdown()) {
                return;
            }
            worker.running = true;
        }
        executor.execute(() -> run(worker));
    }

    /** Forgets the worker of a pod that is gone for good (a later update creates a new one). */
    public void forget(String podUid) {
        workers.computeIfPresent(podUid, (uid, worker) -> {
            synchronized (worker) {
                return worker.running || worker.pending ? worker : null;
            }
        });
    }

    private void run(Worker worker) {
        while (true) {
            synchronized (worker) {
                if (!worker.pending) {
                    worker.running = false;
                    return;
                }
                worker.pending = false;
            }
            try {
                sync.accept(worker.podUid);
            }
            catch (RuntimeException e) {
                log.warn("Syncing pod {} failed", worker.podUid, e);
            }
        }
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
    }

    private static final class Worker {
        final String podUid;
        boolean pending;
        boolean running;

        Worker(String podUid) {
            this.podUid = podUid;
        }
    }
}
