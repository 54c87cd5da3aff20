package io.k4j.kubelet.prober;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Container instances set by the test. Thread-safe. */
final class FakeContainerStates implements ContainerStates {
    private final Map<String, RunningContainer> containers = new ConcurrentHashMap<>();

    void put(String podUid, String containerName, RunningContainer container) {
        containers.put(podUid + "/" + containerName, container);
    }

    @Override
    public Optional<RunningContainer> container(String podUid, String containerName) {
        return Optional.ofNullable(containers.get(podUid + "/" + containerName));
    }
}
