package io.k4j.scheduler.plugins.noderesources;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PreScorePlugin;
import io.k4j.scheduler.framework.ScorePlugin;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.util.List;

/**
 * Prefers nodes whose resource usage stays balanced across resources with the pod on them: the score is
 * {@code (1 - standard deviation of the requested fractions) × 100}. Thread-safe.
 */
public final class NodeResourcesBalancedAllocation implements PreScorePlugin, ScorePlugin {
    public static final String NAME = Names.NODE_RESOURCES_BALANCED_ALLOCATION;

    private final List<ResourceAllocation.ScoredResource> resources;

    public NodeResourcesBalancedAllocation(List<ResourceSpec> resources) {
        this.resources = ResourceAllocation.resolve(resources);
    }

    /** Builds the plugin from its {@code NodeResourcesBalancedAllocationArgs}. */
    public static NodeResourcesBalancedAllocation fromArgs(JsonNode args) {
        if (args == null || args.isNull() || !args.hasNonNull("resources")) {
            return new NodeResourcesBalancedAllocation(NodeResourcesFit.DEFAULT_RESOURCES);
        }
        return new NodeResourcesBalancedAllocation(NodeResourcesFit.parseResources(args.get("resources"), "resources"));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status preScore(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        // A pod that requests nothing cannot change any node's balance.
        return pod.requests().isZero() ? Status.SKIP : Status.SUCCESS;
    }

    @Override
    public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        double[] fractions = new double[resources.size()];
        int count = 0;
        for (ResourceAllocation.ScoredResource resource : resources) {
            if (ResourceAllocation.skip(pod, resource)) {
                continue;
            }
            long allocatable = ResourceAllocation.allocatable(nodeInfo, resource);
            if (allocatable == 0) {
                continue;
            }
            long requested = ResourceAllocation.requested(nodeInfo, pod, resource, true);
            fractions[count++] = Math.min(1.0, (double) requested / allocatable);
        }
        double deviation = 0;
        if (count == 2) {
            deviation = Math.abs((fractions[0] - fractions[1]) / 2);
        } else if (count > 2) {
            double mean = 0;
            for (int i = 0; i < count; i++) {
                mean += fractions[i];
            }
            mean /= count;
            double sum = 0;
            for (int i = 0; i < count; i++) {
                sum += (fractions[i] - mean) * (fractions[i] - mean);
            }
            deviation = Math.sqrt(sum / count);
        }
        return (long) ((1 - deviation) * MAX_NODE_SCORE);
    }
}
