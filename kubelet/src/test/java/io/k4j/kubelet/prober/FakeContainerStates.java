package io.k4j.kubelet.prober;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Container instances set by the test. Thread-safe. */
final class FakeContainerStates implements ContainerStates {
    private final Map<String, RunningContainer> containers = new ConcurrentHashMap<>();
    private final AtomicInteger reads = new AtomicInteger();

    void put(String podUid, String containerName, RunningContainer container) {
        containers.put(podUid + "/" + containerName, container);
    }

    /** How often a worker read a container's state. */
    int reads() {
        return reads.get();
    }

    @Override
    public Optional<RunningContainer> container(String podUid, String containerName) {
        reads.incrementAndGet();
        return Optional.ofNullable(containers.get(podUid + "/" + containerName));
    }
}
