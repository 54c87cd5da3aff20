package io.k4j.controllerkit.expectations;

import java.time.InstantSource;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Expectations that also remember which pods a deletion was asked for, so a deletion is counted once even when both
 * the graceful-deletion update and the final delete event arrive (upstream's {@code UIDTrackingControllerExpectations};
 * it tracks pod keys, as upstream does despite the name). Thread-safe.
 */
public final class UidTrackingControllerExpectations extends ControllerExpectations {
    private final ConcurrentMap<String, Set<String>> deletingKeys = new ConcurrentHashMap<>();

    public UidTrackingControllerExpectations(InstantSource clock) {
        super(clock);
    }

    /** Expects the deletion of exactly these pods (by {@code namespace/name}). */
    public void expectDeletions(String controllerKey, Set<String> podKeys) {
        deletingKeys.put(controllerKey, ConcurrentHashMap.newKeySet());
        deletingKeys.get(controllerKey).addAll(podKeys);
        setExpectations(controllerKey, 0, podKeys.size());
    }

    /** Counts a pod's deletion once, however many events report it. */
    public void deletionObserved(String controllerKey, String podKey) {
        Set<String> keys = deletingKeys.get(controllerKey);
        if (keys != null && keys.remove(podKey)) {
            lowerExpectations(controllerKey, 0, 1);
        }
    }

    /** The pods whose deletion is still awaited. */
    public Set<String> deletingPods(String controllerKey) {
        Set<String> keys = deletingKeys.get(controllerKey);
        return keys == null ? Set.of() : Set.copyOf(new HashSet<>(keys));
    }

    @Override
    public void deleteExpectations(String key) {
        super.deleteExpectations(key);
        deletingKeys.remove(key);
    }
}
