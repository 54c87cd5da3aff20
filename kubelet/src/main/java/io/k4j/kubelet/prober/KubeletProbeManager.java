package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.controllerkit.events.EventRecorder;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's {@link ProbeManager}: one worker per container and probe kind, each on its own virtual thread,
 * probing every periodSeconds (at once when the pod is added, and at once for readiness when the status manager
 * finds a started container without a readiness result). Results are kept per container ID, as upstream's results
 * managers. Thread-safe.
 */
public final class KubeletProbeManager implements ProbeManager {
    private static final Logger log = LoggerFactory.getLogger(KubeletProbeManager.class);

    private final ContainerStates states;
    private final ProbeListener listener;
    private final EventRecorder events;
    private final InstantSource clock;
    private final Prober prober;
    private final Map<WorkerKey, Running> workers = new ConcurrentHashMap<>();
    private final Map<ProbeType, Map<String, ProbeWorker.ProbeState>> results = new EnumMap<>(ProbeType.class);
    private final ProbeWorker.Results sink = new Sink();
    private volatile boolean closed;

    private record WorkerKey(String podUid, String containerName, ProbeType type) {}

    /** A worker and what its loop waits on. */
    private static final class Running {
        final ProbeWorker worker;
        final Semaphore trigger = new Semaphore(0);
        volatile boolean stopped;
        volatile Thread thread;

        Running(ProbeWorker worker) {
            this.worker = worker;
        }
    }

    /**
     * @param runner runs exec probes in containers (CRI ExecSync)
     * @param states the current instance of each container, read every period
     * @param listener told when a container must be restarted or its readiness/startup changed
     * @param events where {@code Unhealthy} and {@code ProbeWarning} events about the pod go
     * @param clock for initialDelaySeconds
     */
    public KubeletProbeManager(ContainerCommandRunner runner, ContainerStates states, ProbeListener listener, EventRecorder events,
            InstantSource clock) {
        this.states = requireNonNull(states, "states is null");
        this.listener = requireNonNull(listener, "listener is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.prober = new Prober(requireNonNull(runner, "runner is null"), new HttpGetter(), new GrpcHealthChecker());
        for (ProbeType type : ProbeType.values()) {
            results.put(type, new ConcurrentHashMap<>());
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Adding a pod again replaces the pod object its workers see (a deletionTimestamp stops its liveness and
     * startup probes, as upstream) and starts nothing new.
     */
    @Override
    public void addPod(Pod pod) {
        requireNonNull(pod, "pod is null");
        if (closed) {
            return;
        }
        String uid = pod.getMetadata().getUid();
        List<Container> containers = new ArrayList<>();
        if (pod.getSpec().getInitContainers() != null) {
            for (Container container : pod.getSpec().getInitContainers()) {
                // Only restartable init containers (sidecars) are probed.
                if ("Always".equals(container.getRestartPolicy())) {
                    containers.add(container);
                }
            }
        }
        if (pod.getSpec().getContainers() != null) {
            containers.addAll(pod.getSpec().getContainers());
        }
        // Every worker of the pod is registered before any starts: a readiness or liveness worker decides whether
        // the container has started by looking for a startup worker, so that one must already be visible.
        Map<WorkerKey, Running> added = new LinkedHashMap<>();
        for (Container container : containers) {
            for (ProbeType type : ProbeType.values()) {
                if (ProbeWorker.probeOf(container, type) == null) {
                    continue;
                }
                WorkerKey key = new WorkerKey(uid, container.getName(), type);
                Running existing = workers.get(key);
                if (existing != null) {
                    existing.worker.updatePod(pod);
                    continue;
                }
                Running running = new Running(new ProbeWorker(pod, container, type, states, prober, sink, events, clock));
                if (workers.putIfAbsent(key, running) == null) {
                    added.put(key, running);
                }
            }
        }
        added.forEach((key, running) -> running.thread = Thread.ofVirtual()
                .name("probe-" + key.type().displayName().toLowerCase() + "-" + key.containerName())
                .start(() -> run(key, running)));
    }

    @Override
    public void removePod(String podUid) {
        requireNonNull(podUid, "podUid is null");
        for (Map.Entry<WorkerKey, Running> entry : List.copyOf(workers.entrySet())) {
            if (entry.getKey().podUid().equals(podUid) && workers.remove(entry.getKey(), entry.getValue())) {
                stop(entry.getValue());
                String containerId = entry.getValue().worker.containerId();
                if (containerId != null) {
                    results.get(entry.getKey().type()).remove(containerId);
                }
            }
        }
    }

    @Override
    public ContainerProbeStatus status(String podUid, String containerName, String containerId) {
        boolean started = started(podUid, containerName, containerId);
        if (!started) {
            return new ContainerProbeStatus(false, false);
        }
        ProbeWorker.ProbeState readiness = results.get(ProbeType.READINESS).get(containerId);
        if (readiness == ProbeWorker.ProbeState.SUCCESS) {
            return new ContainerProbeStatus(true, true);
        }
        Running worker = workers.get(new WorkerKey(podUid, containerName, ProbeType.READINESS));
        if (worker == null) {
            return new ContainerProbeStatus(true, true);
        }
        // Started but not yet known ready: probe readiness now instead of waiting for the next period.
        worker.trigger.release();
        return new ContainerProbeStatus(true, false);
    }

    private boolean started(String podUid, String containerName, String containerId) {
        ProbeWorker.ProbeState startup = results.get(ProbeType.STARTUP).get(containerId);
        if (startup != null) {
            return startup == ProbeWorker.ProbeState.SUCCESS;
        }
        return !workers.containsKey(new WorkerKey(podUid, containerName, ProbeType.STARTUP));
    }

    private void set(ProbeWorker worker, String containerId, ProbeWorker.ProbeState state, boolean probed) {
        ProbeWorker.ProbeState previous = results.get(worker.type()).put(containerId, state);
        // A probe's liveness or startup failure asks for a restart even when the result was a failure already: a
        // container seen before it ran fails unprobed, and that must not swallow the first failure a probe finds.
        // The worker then holds until the container is replaced, so this happens once per instance.
        boolean restart = probed && state == ProbeWorker.ProbeState.FAILURE
                && (worker.type() == ProbeType.LIVENESS || worker.type() == ProbeType.STARTUP);
        if (previous == state && !restart) {
            return;
        }
        String podUid = worker.podUid();
        String containerName = worker.container().getName();
        try {
            if (restart) {
                listener.restartContainer(podUid, containerName, containerId, worker.type(), killMessage(worker));
            }
            if (previous != state && (worker.type() == ProbeType.READINESS || worker.type() == ProbeType.STARTUP)) {
                listener.probeResultChanged(podUid, containerName, containerId, worker.type());
            }
        } catch (RuntimeException e) {
            log.warn("Probe listener failed for container {} of pod {}", containerName, podUid, e);
        }
    }

    /** The workers' view of the results (kept private so that the manager's public surface is {@link ProbeManager}). */
    private final class Sink implements ProbeWorker.Results {
        @Override
        public void set(ProbeWorker worker, String containerId, ProbeWorker.ProbeState state, boolean probed) {
            KubeletProbeManager.this.set(worker, containerId, state, probed);
        }

        @Override
        public void remove(ProbeWorker worker, String containerId) {
            results.get(worker.type()).remove(containerId);
        }

        @Override
        public boolean started(String podUid, String containerName, String containerId) {
            return KubeletProbeManager.this.started(podUid, containerName, containerId);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Map.Entry<WorkerKey, Running> entry : List.copyOf(workers.entrySet())) {
            if (workers.remove(entry.getKey(), entry.getValue())) {
                stop(entry.getValue());
            }
        }
    }

    /** Upstream's {@code Killing} message: whether the container comes back depends on the restart policy. */
    private static String killMessage(ProbeWorker worker) {
        String probe = worker.type() == ProbeType.LIVENESS ? "liveness" : "startup";
        boolean sidecar = "Always".equals(worker.container().getRestartPolicy());
        boolean restarted = sidecar || !"Never".equals(worker.pod().getSpec().getRestartPolicy());
        return "Container " + worker.container().getName() + " failed " + probe + " probe, "
                + (restarted ? "will be restarted" : "will not be restarted");
    }

    private void run(WorkerKey key, Running running) {
        ProbeWorker worker = running.worker;
        long periodMillis = worker.period().toMillis();
        try {
            while (!running.stopped) {
                boolean keepGoing;
                try {
                    keepGoing = worker.doProbe();
                } catch (RuntimeException e) {
                    log.warn("Probe worker for container {} of pod {} failed", key.containerName(), key.podUid(), e);
                    keepGoing = true;
                }
                if (!keepGoing || running.stopped) {
                    break;
                }
                running.trigger.tryAcquire(periodMillis, TimeUnit.MILLISECONDS);
                running.trigger.drainPermits();
            }
        } catch (InterruptedException e) {
            // Stopped.
        } finally {
            workers.remove(key, running);
        }
    }

    private static void stop(Running running) {
        running.stopped = true;
        Thread thread = running.thread;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
