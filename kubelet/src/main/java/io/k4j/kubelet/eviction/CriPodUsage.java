package io.k4j.kubelet.eviction;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.ContainerStats;
import io.k4j.kubelet.cri.v1.ContainerStatsFilter;
import io.k4j.kubelet.kuberuntime.KubeletLabels;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The pods' usage from the runtime's container statistics (CRI ListContainerStats), grouped by the pod UID label:
 * memory working set, writable layer bytes and inodes. Thread-safe.
 */
public final class CriPodUsage implements Supplier<Map<String, PodUsage>> {
    private final RuntimeService runtime;

    public CriPodUsage(RuntimeService runtime) {
        this.runtime = requireNonNull(runtime, "runtime is null");
    }

    @Override
    public Map<String, PodUsage> get() {
        java.util.List<ContainerStats> stats;
        try {
            stats = runtime.listContainerStats(ContainerStatsFilter.getDefaultInstance());
        }
        catch (CriException e) {
            return Map.of();
        }
        return fromStats(stats);
    }

    static Map<String, PodUsage> fromStats(java.util.List<ContainerStats> stats) {
        Map<String, Map<String, PodUsage.ContainerUsage>> byPod = new HashMap<>();
        for (ContainerStats container : stats) {
            String podUid = container.getAttributes().getLabelsMap().get(KubeletLabels.POD_UID);
            String name = container.getAttributes().getLabelsMap().get(KubeletLabels.CONTAINER_NAME);
            if (podUid == null || name == null) {
                continue;
            }
            PodUsage.ContainerUsage usage = new PodUsage.ContainerUsage(
                    container.getMemory().getWorkingSetBytes().getValue(),
                    container.getWritableLayer().getUsedBytes().getValue(),
                    container.getWritableLayer().getInodesUsed().getValue());
            // Of a restarted container, count the latest instance: the largest is the safe guess for both.
            byPod.computeIfAbsent(podUid, key -> new HashMap<>())
                    .merge(name, usage, (a, b) -> a.memoryWorkingSetBytes() >= b.memoryWorkingSetBytes() ? a : b);
        }
        Map<String, PodUsage> result = new HashMap<>();
        byPod.forEach((uid, containers) -> result.put(uid, new PodUsage(containers)));
        return Map.copyOf(result);
    }
}
