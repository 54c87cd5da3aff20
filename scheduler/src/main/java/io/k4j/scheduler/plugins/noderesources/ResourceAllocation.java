package io.k4j.scheduler.plugins.noderesources;

import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.Resource;

/** How scoring plugins read requested and allocatable amounts, as upstream's {@code resourceAllocationScorer}. Stateless. */
final class ResourceAllocation {
    private ResourceAllocation() {}

    /**
     * What the node would have requested with the pod on it. CPU and memory use the non-zero requests unless
     * {@code useRequested}, so that pods without requests still spread.
     */
    static long requested(NodeInfo nodeInfo, PodInfo pod, String resource, boolean useRequested) {
        if (!useRequested && (resource.equals("cpu") || resource.equals("memory"))) {
            return nodeInfo.nonZeroRequested().get(resource) + pod.nonZeroRequests().get(resource);
        }
        return nodeInfo.requested().get(resource) + pod.requests().get(resource);
    }

    static long allocatable(NodeInfo nodeInfo, String resource) {
        return nodeInfo.allocatable().get(resource);
    }

    /** Whether a scalar resource plays no part for this pod (upstream skips extended resources the pod does not ask for). */
    static boolean skip(PodInfo pod, String resource) {
        return Resource.isScalarResourceName(resource) && pod.requests().scalar(resource) == 0;
    }
}
