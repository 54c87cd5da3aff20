package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Probe;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.events.ContainerReferences;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

/**
 * Probes one container of one pod with one kind of probe, as upstream's probe worker: it follows the container's
 * current instance (a new container ID starts over), waits initialDelaySeconds after the start, lets only the startup
 * probe run until the container has started, counts consecutive results against successThreshold and
 * failureThreshold, and after a liveness or startup failure holds until the container is replaced. {@link #doProbe}
 * is one period's work; the manager's loop calls it every periodSeconds. Not thread-safe: one thread runs a worker
 * (the pod object may be replaced from another thread).
 */
final class ProbeWorker {
    /** Where a worker keeps its results; the manager. */
    interface Results {
        /**
         * Sets the result of a container instance.
         *
         * @param probed whether a probe found it (only then can a failure mean "restart the container")
         */
        void set(ProbeWorker worker, String containerId, ProbeState state, boolean probed);

        void remove(ProbeWorker worker, String containerId);

        /** Whether the container instance has started (its startup probe succeeded, or it has none). */
        boolean started(String podUid, String containerName, String containerId);
    }

    /** A probe result as upstream's results manager keeps it. */
    enum ProbeState {
        SUCCESS,
        FAILURE,
        UNKNOWN
    }

    private final Container container;
    private final ProbeType type;
    private final Probe spec;
    private final ContainerStates states;
    private final Prober prober;
    private final Results results;
    private final EventRecorder events;
    private final InstantSource clock;
    private volatile Pod pod;

    private String containerId;
    private boolean onHold;
    private ProbeState lastResult = ProbeState.UNKNOWN;
    private int resultRun;

    ProbeWorker(Pod pod, Container container, ProbeType type, ContainerStates states, Prober prober, Results results, EventRecorder events,
            InstantSource clock) {
        this.pod = requireNonNull(pod, "pod is null");
        this.container = requireNonNull(container, "container is null");
        this.type = requireNonNull(type, "type is null");
        this.spec = requireNonNull(probeOf(container, type), "the container has no such probe");
        this.states = requireNonNull(states, "states is null");
        this.prober = requireNonNull(prober, "prober is null");
        this.results = requireNonNull(results, "results is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    static Probe probeOf(Container container, ProbeType type) {
        return switch (type) {
            case LIVENESS -> container.getLivenessProbe();
            case READINESS -> container.getReadinessProbe();
            case STARTUP -> container.getStartupProbe();
        };
    }

    Pod pod() {
        return pod;
    }

    void updatePod(Pod pod) {
        this.pod = requireNonNull(pod, "pod is null");
    }

    private String fieldPath() {
        return ContainerReferences.fieldPath(pod, container.getName());
    }

    Container container() {
        return container;
    }

    ProbeType type() {
        return type;
    }

    String podUid() {
        return pod.getMetadata().getUid();
    }

    Duration period() {
        return Duration.ofSeconds(spec.getPeriodSeconds() == null || spec.getPeriodSeconds() <= 0 ? 10 : spec.getPeriodSeconds());
    }

    /** The container ID the worker follows now, or null before the container exists. */
    String containerId() {
        return containerId;
    }

    /**
     * One probe period.
     *
     * @return whether the worker should keep going
     */
    boolean doProbe() throws InterruptedException {
        Optional<RunningContainer> current = states.container(podUid(), container.getName());
        if (current.isEmpty()) {
            return true;
        }
        RunningContainer instance = current.get();
        if (!instance.containerId().equals(containerId)) {
            if (containerId != null) {
                results.remove(this, containerId);
            }
            containerId = instance.containerId();
            results.set(this, containerId, initialState(), false);
            onHold = false;
            lastResult = ProbeState.UNKNOWN;
            resultRun = 0;
        }
        if (onHold) {
            return true;
        }
        if (!instance.running()) {
            results.set(this, containerId, ProbeState.FAILURE, false);
            return true;
        }
        if (pod.getMetadata().getDeletionTimestamp() != null && (type == ProbeType.LIVENESS || type == ProbeType.STARTUP)) {
            // A pod being deleted is not restarted by its probes: report success and stop.
            results.set(this, containerId, ProbeState.SUCCESS, false);
            return false;
        }
        int initialDelay = spec.getInitialDelaySeconds() == null ? 0 : spec.getInitialDelaySeconds();
        if (Duration.between(instance.startedAt(), clock.instant()).toSeconds() < initialDelay) {
            return true;
        }
        boolean started = results.started(podUid(), container.getName(), containerId);
        if (started == (type == ProbeType.STARTUP)) {
            // The startup probe stops once the container started; the others wait until it has.
            return true;
        }
        ProbeState result;
        try {
            ProbeOutcome outcome = prober.probe(spec, container, instance);
            result = switch (outcome.result()) {
                case SUCCESS -> ProbeState.SUCCESS;
                case WARNING -> {
                    events.event(pod, fieldPath(), EventRecorder.WARNING, "ProbeWarning",
                            type.displayName() + " probe warning: " + outcome.output());
                    yield ProbeState.SUCCESS;
                }
                case FAILURE -> {
                    events.event(pod, fieldPath(), EventRecorder.WARNING, "Unhealthy",
                            type.displayName() + " probe failed: " + outcome.output());
                    yield ProbeState.FAILURE;
                }
            };
        } catch (ProbeException e) {
            events.event(pod, fieldPath(), EventRecorder.WARNING, "Unhealthy",
                    type.displayName() + " probe errored: " + e.getMessage());
            return true;
        }
        if (result == lastResult) {
            resultRun++;
        } else {
            lastResult = result;
            resultRun = 1;
        }
        int failureThreshold = spec.getFailureThreshold() == null || spec.getFailureThreshold() <= 0 ? 3 : spec.getFailureThreshold();
        int successThreshold = spec.getSuccessThreshold() == null || spec.getSuccessThreshold() <= 0 ? 1 : spec.getSuccessThreshold();
        if ((result == ProbeState.FAILURE && resultRun < failureThreshold) || (result == ProbeState.SUCCESS && resultRun < successThreshold)) {
            return true;
        }
        results.set(this, containerId, result, true);
        if ((type == ProbeType.LIVENESS || type == ProbeType.STARTUP) && result == ProbeState.FAILURE) {
            // The container will be restarted; probing it meanwhile could disturb its shutdown.
            onHold = true;
            resultRun = 0;
        }
        return true;
    }

    private ProbeState initialState() {
        return switch (type) {
            case READINESS -> ProbeState.FAILURE;
            case LIVENESS -> ProbeState.SUCCESS;
            case STARTUP -> ProbeState.UNKNOWN;
        };
    }
}
