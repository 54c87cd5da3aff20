package io.k4j.controllers.endpointutil;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Service;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.pods.Pods;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Upstream's {@code TriggerTimeTracker}: the value of {@link EndpointPods#LAST_CHANGE_TRIGGER_TIME} for a service's
 * next endpoints write. For a service this tracker has not seen yet it is the service's creation; afterwards the
 * earliest of the changes seen since the previous sync: a pod's Ready condition changing (its last transition time) or
 * the service's creation time moving (deleted and created again between two syncs). Every sync is remembered, also one that writes nothing, so that a later write
 * carries only the changes that came after it (upstream computes the time before it knows whether it will write, for
 * the same reason). Each controller keeps its own. Thread-safe (one sync per service at a time, as the work queue
 * guarantees).
 */
public final class TriggerTimeTracker {
    private record ServiceState(Map<String, Instant> podTriggerTimes, Instant serviceTriggerTime) {}

    private final Map<String, ServiceState> states = new ConcurrentHashMap<>();

    /** The trigger time of this sync, empty when nothing that counts changed; remembers what was seen. */
    public Optional<Instant> compute(Service service, List<Pod> pods) {
        String key = ObjectKeys.key(service);
        Optional<Instant> serviceTime = Optional.ofNullable(service.getMetadata().getCreationTimestamp())
                .filter(created -> !created.isEmpty()).map(Instant::parse);
        ServiceState previous = states.get(key);
        Map<String, Instant> podTimes = new HashMap<>();
        Instant earliest = null;
        for (Pod pod : pods) {
            Optional<Instant> podTime = Pods.condition(pod, "Ready").map(PodCondition::getLastTransitionTime)
                    .filter(time -> !time.isEmpty()).map(Instant::parse);
            if (podTime.isEmpty()) {
                continue;
            }
            podTimes.put(pod.getMetadata().getName(), podTime.get());
            Instant seen = previous == null ? null : previous.podTriggerTimes().get(pod.getMetadata().getName());
            if (seen == null || podTime.get().isAfter(seen)) {
                earliest = earliest == null || podTime.get().isBefore(earliest) ? podTime.get() : earliest;
            }
        }
        Instant serviceTriggerTime = serviceTime.orElse(Instant.MIN);
        if (previous != null && serviceTriggerTime.isAfter(previous.serviceTriggerTime())) {
            earliest = earliest == null || serviceTriggerTime.isBefore(earliest) ? serviceTriggerTime : earliest;
        }
        states.put(key, new ServiceState(Map.copyOf(podTimes), serviceTriggerTime));
        if (previous == null) {
            // A service seen for the first time (new, or new to this controller since it started): its endpoints are
            // due to its creation, whatever its pods did before.
            return serviceTime;
        }
        return Optional.ofNullable(earliest);
    }

    /** Drops what was remembered of a deleted service. */
    public void forget(String serviceKey) {
        states.remove(serviceKey);
    }
}
