package io.k4j.controllers.endpoint;

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
 * next endpoints write, the earliest of the changes seen since its last sync: a pod's Ready condition changing (its
 * last transition time) or the service being created. Each controller keeps its own. Thread-safe (one sync per
 * service at a time, as the work queue guarantees).
 */
public final class TriggerTimeTracker {
    private record ServiceState(Map<String, Instant> podTriggerTimes, Instant serviceTriggerTime) {}

    private final Map<String, ServiceState> states = new ConcurrentHashMap<>();

    /** The trigger time of this sync, empty when nothing that counts changed; remembers what was seen. */
    public Optional<Instant> compute(Service service, List<Pod> pods) {
        String key = ObjectKeys.key(service);
        ServiceState previous = states.getOrDefault(key, new ServiceState(Map.of(), Instant.MIN));
        Map<String, Instant> podTimes = new HashMap<>();
        Instant earliest = null;
        for (Pod pod : pods) {
            Optional<Instant> podTime = Pods.condition(pod, "Ready").map(PodCondition::getLastTransitionTime)
                    .filter(time -> !time.isEmpty()).map(Instant::parse);
            if (podTime.isEmpty()) {
                continue;
            }
            podTimes.put(pod.getMetadata().getName(), podTime.get());
            if (podTime.get().isAfter(previous.podTriggerTimes().getOrDefault(pod.getMetadata().getName(), Instant.MIN))) {
                earliest = earliest == null || podTime.get().isBefore(earliest) ? podTime.get() : earliest;
            }
        }
        String created = service.getMetadata().getCreationTimestamp();
        Instant serviceTime = created == null || created.isEmpty() ? Instant.MIN : Instant.parse(created);
        if (serviceTime.isAfter(previous.serviceTriggerTime())) {
            earliest = earliest == null || serviceTime.isBefore(earliest) ? serviceTime : earliest;
        }
        states.put(key, new ServiceState(Map.copyOf(podTimes), serviceTime));
        return Optional.ofNullable(earliest);
    }

    public void forget(String serviceKey) {
        states.remove(serviceKey);
    }
}
