package io.k4j.scheduler.plugins.noderesources;

import static java.util.Objects.requireNonNull;

import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Resource;
import java.util.List;

/**
 * How scoring plugins read requested and allocatable amounts, as upstream's {@code resourceAllocationScorer}. The
 * resource names are resolved to fields once, when the plugin is built, because scoring reads them for every node of
 * every cycle. Immutable and thread-safe.
 */
final class ResourceAllocation {
    private enum Kind {
        CPU,
        MEMORY,
        EPHEMERAL_STORAGE,
        PODS,
        SCALAR
    }

    /** A scored resource with its field resolved. */
    record ScoredResource(String name, int weight, Kind kind) {
        ScoredResource {
            requireNonNull(name, "name is null");
            requireNonNull(kind, "kind is null");
        }

        long of(Resource resource) {
            return switch (kind) {
                case CPU -> resource.milliCpu;
                case MEMORY -> resource.memory;
                case EPHEMERAL_STORAGE -> resource.ephemeralStorage;
                case PODS -> resource.allowedPodNumber;
                case SCALAR -> resource.scalar(name);
            };
        }
    }

    private ResourceAllocation() {}

    static List<ScoredResource> resolve(List<ResourceSpec> resources) {
        return resources.stream().map(spec -> new ScoredResource(spec.name(), spec.weight(), switch (spec.name()) {
            case "cpu" -> Kind.CPU;
            case "memory" -> Kind.MEMORY;
            case "ephemeral-storage" -> Kind.EPHEMERAL_STORAGE;
            case "pods" -> Kind.PODS;
            default -> Kind.SCALAR;
        })).toList();
    }

    /**
     * What the node would have requested with the pod on it. CPU and memory use the non-zero requests unless
     * {@code useRequested}, so that pods without requests still spread.
     */
    static long requested(NodeInfo nodeInfo, PodInfo pod, ScoredResource resource, boolean useRequested) {
        // CPU and memory from the figures the NodeInfo keeps in itself, read for every node of every cycle.
        return switch (resource.kind()) {
            case CPU -> useRequested ? nodeInfo.requestedMilliCpu() + pod.requests().milliCpu
                    : nodeInfo.nonZeroRequestedMilliCpu() + pod.nonZeroRequests().milliCpu;
            case MEMORY -> useRequested ? nodeInfo.requestedMemory() + pod.requests().memory
                    : nodeInfo.nonZeroRequestedMemory() + pod.nonZeroRequests().memory;
            default -> resource.of(nodeInfo.requested()) + resource.of(pod.requests());
        };
    }

    static long allocatable(NodeInfo nodeInfo, ScoredResource resource) {
        return switch (resource.kind()) {
            case CPU -> nodeInfo.allocatableMilliCpu();
            case MEMORY -> nodeInfo.allocatableMemory();
            case PODS -> nodeInfo.allowedPodNumber();
            default -> resource.of(nodeInfo.allocatable());
        };
    }

    /** Whether a scalar resource plays no part for this pod (upstream skips extended resources the pod does not ask for). */
    static boolean skip(PodInfo pod, ScoredResource resource) {
        return resource.kind() == Kind.SCALAR && Resource.isScalarResourceName(resource.name()) && pod.requests().scalar(resource.name()) == 0;
    }
}
