package io.k4j.scheduler.plugins.noderesources;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.EnqueueExtensions;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.FilterPlugin;
import io.k4j.scheduler.framework.NodeInfo;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PreFilterPlugin;
import io.k4j.scheduler.framework.Resource;
import io.k4j.scheduler.framework.ScorePlugin;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Filters out nodes without room for the pod's requests (pods, cpu, memory, ephemeral storage, scalar resources) and
 * scores by the configured strategy: LeastAllocated (default), MostAllocated or RequestedToCapacityRatio. A request larger than the node's
 * whole allocatable is unresolvable, since preemption could not help. Thread-safe.
 */
public final class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, ScorePlugin, EnqueueExtensions {
    public static final String NAME = Names.NODE_RESOURCES_FIT;
    public static final List<ResourceSpec> DEFAULT_RESOURCES = List.of(new ResourceSpec("cpu", 1), new ResourceSpec("memory", 1));

    private final ScoringStrategyType strategy;
    private final List<ResourceAllocation.ScoredResource> resources;
    private final Set<String> ignoredResources;
    private final Set<String> ignoredResourceGroups;
    private final List<UtilizationShapePoint> shape;

    public NodeResourcesFit(ScoringStrategyType strategy, List<ResourceSpec> resources, Set<String> ignoredResources, Set<String> ignoredResourceGroups) {
        this(strategy, resources, ignoredResources, ignoredResourceGroups, List.of());
    }

    /**
     * @param shape the RequestedToCapacityRatio function's points, ordered by increasing utilization; empty for the
     *     other strategies
     */
    public NodeResourcesFit(ScoringStrategyType strategy, List<ResourceSpec> resources, Set<String> ignoredResources, Set<String> ignoredResourceGroups,
            List<UtilizationShapePoint> shape) {
        this.strategy = requireNonNull(strategy, "strategy is null");
        this.shape = List.copyOf(shape);
        if (strategy == ScoringStrategyType.REQUESTED_TO_CAPACITY_RATIO && this.shape.isEmpty()) {
            throw new IllegalArgumentException("scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified");
        }
        this.resources = ResourceAllocation.resolve(resources);
        this.ignoredResources = Set.copyOf(ignoredResources);
        this.ignoredResourceGroups = Set.copyOf(ignoredResourceGroups);
    }

    public static NodeResourcesFit defaults() {
        return new NodeResourcesFit(ScoringStrategyType.LEAST_ALLOCATED, DEFAULT_RESOURCES, Set.of(), Set.of());
    }

    /** Builds the plugin from its {@code NodeResourcesFitArgs}; messages name the invalid field. */
    public static NodeResourcesFit fromArgs(JsonNode args) {
        if (args == null || args.isNull()) {
            return defaults();
        }
        ScoringStrategyType strategy = ScoringStrategyType.LEAST_ALLOCATED;
        List<ResourceSpec> resources = DEFAULT_RESOURCES;
        List<UtilizationShapePoint> shape = List.of();
        JsonNode scoring = args.get("scoringStrategy");
        if (scoring != null && !scoring.isNull()) {
            if (scoring.hasNonNull("type")) {
                strategy = ScoringStrategyType.fromConfigName(scoring.get("type").asText());
            }
            if (scoring.hasNonNull("resources")) {
                resources = parseResources(scoring.get("resources"), "scoringStrategy.resources");
            }
            if (strategy == ScoringStrategyType.REQUESTED_TO_CAPACITY_RATIO) {
                shape = parseShape(scoring.path("requestedToCapacityRatio").path("shape"));
            }
        }
        return new NodeResourcesFit(strategy, resources, stringSet(args.get("ignoredResources"), "ignoredResources"),
                stringSet(args.get("ignoredResourceGroups"), "ignoredResourceGroups"), shape);
    }

    private static List<UtilizationShapePoint> parseShape(JsonNode node) {
        String field = "scoringStrategy.requestedToCapacityRatio.shape";
        if (!node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException(field + ": Required value: at least one point must be specified");
        }
        List<UtilizationShapePoint> points = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            int utilization = node.get(i).path("utilization").asInt(0);
            int score = node.get(i).path("score").asInt(0);
            if (utilization < 0 || utilization > 100) {
                throw new IllegalArgumentException(field + "[" + i + "].utilization: Invalid value: " + utilization + ": not in valid range [0, 100]");
            }
            if (!points.isEmpty() && utilization <= points.get(points.size() - 1).utilization()) {
                throw new IllegalArgumentException(field + "[" + i + "].utilization: Invalid value: " + utilization + ": utilization values must be sorted in increasing order");
            }
            if (score < 0 || score > 10) {
                throw new IllegalArgumentException(field + "[" + i + "].score: Invalid value: " + score + ": not in valid range [0, 10]");
            }
            points.add(new UtilizationShapePoint(utilization, score));
        }
        return List.copyOf(points);
    }

    static List<ResourceSpec> parseResources(JsonNode node, String field) {
        if (!node.isArray()) {
            throw new IllegalArgumentException(field + ": Invalid value: must be a list");
        }
        List<ResourceSpec> resources = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            String name = entry.path("name").asText("");
            if (name.isEmpty()) {
                throw new IllegalArgumentException(field + "[" + i + "].name: Required value");
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException(field + "[" + i + "].name: Duplicate value: \"" + name + "\"");
            }
            int weight = entry.path("weight").asInt(1);
            if (weight < 1 || weight > 100) {
                throw new IllegalArgumentException(field + "[" + i + "].weight: Invalid value: " + weight + ": resource weight of " + name + " should be in the range [1, 100]");
            }
            resources.add(new ResourceSpec(name, weight));
        }
        return List.copyOf(resources);
    }

    private static Set<String> stringSet(JsonNode node, String field) {
        if (node == null || node.isNull()) {
            return Set.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException(field + ": Invalid value: must be a list");
        }
        Set<String> values = new HashSet<>();
        node.forEach(value -> values.add(value.asText()));
        return values;
    }

    @Override
    public String name() {
        return NAME;
    }

    public ScoringStrategyType strategy() {
        return strategy;
    }

    @Override
    public Status preFilter(CycleState state, PodInfo pod, List<io.k4j.scheduler.framework.NodeInfo> nodes) {
        // The requests are computed once per pod version in PodInfo; nothing to keep in the cycle state.
        return Status.SUCCESS;
    }

    @Override
    public Status filter(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        Resource request = pod.requests();
        List<String> reasons = null;
        boolean unresolvable = false;
        if (nodeInfo.podCount() + 1 > nodeInfo.allowedPodNumber()) {
            reasons = add(reasons, "Too many pods");
        }
        if (request.milliCpu > 0 && request.milliCpu > nodeInfo.allocatableMilliCpu() - nodeInfo.requestedMilliCpu()) {
            reasons = add(reasons, "Insufficient cpu");
            unresolvable |= request.milliCpu > nodeInfo.allocatableMilliCpu();
        }
        if (request.memory > 0 && request.memory > nodeInfo.allocatableMemory() - nodeInfo.requestedMemory()) {
            reasons = add(reasons, "Insufficient memory");
            unresolvable |= request.memory > nodeInfo.allocatableMemory();
        }
        // The rest only for pods that ask for it: the node's resource objects are not read otherwise.
        Resource allocatable = nodeInfo.allocatable();
        Resource requested = nodeInfo.requested();
        if (request.ephemeralStorage > 0 && request.ephemeralStorage > allocatable.ephemeralStorage - requested.ephemeralStorage) {
            reasons = add(reasons, "Insufficient ephemeral-storage");
            unresolvable |= request.ephemeralStorage > allocatable.ephemeralStorage;
        }
        for (Map.Entry<String, Long> entry : request.scalarResources().entrySet()) {
            String resource = entry.getKey();
            long amount = entry.getValue();
            if (amount == 0 || isIgnored(resource)) {
                continue;
            }
            if (amount > allocatable.scalar(resource) - requested.scalar(resource)) {
                reasons = add(reasons, "Insufficient " + resource);
                unresolvable |= amount > allocatable.scalar(resource);
            }
        }
        if (reasons == null) {
            return Status.SUCCESS;
        }
        String[] reasonArray = reasons.toArray(String[]::new);
        return unresolvable ? Status.unresolvable(reasonArray) : Status.unschedulable(reasonArray);
    }

    private boolean isIgnored(String resource) {
        if (ignoredResources.contains(resource)) {
            return true;
        }
        int slash = resource.indexOf('/');
        return slash > 0 && ignoredResourceGroups.contains(resource.substring(0, slash));
    }

    private static List<String> add(List<String> reasons, String reason) {
        List<String> list = reasons == null ? new ArrayList<>(2) : reasons;
        list.add(reason);
        return list;
    }

    @Override
    public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        long weightedScore = 0;
        long weightSum = 0;
        for (ResourceAllocation.ScoredResource resource : resources) {
            if (ResourceAllocation.skip(pod, resource)) {
                continue;
            }
            long allocatable = ResourceAllocation.allocatable(nodeInfo, resource);
            if (allocatable == 0) {
                continue;
            }
            long requested = ResourceAllocation.requested(nodeInfo, pod, resource, false);
            long score = switch (strategy) {
                case LEAST_ALLOCATED -> requested > allocatable ? 0 : (allocatable - requested) * MAX_NODE_SCORE / allocatable;
                case MOST_ALLOCATED -> Math.min(requested, allocatable) * MAX_NODE_SCORE / allocatable;
                case REQUESTED_TO_CAPACITY_RATIO -> shapeScore(requested > allocatable ? 100 : requested * 100 / allocatable);
            };
            weightedScore += score * resource.weight();
            weightSum += resource.weight();
        }
        if (weightSum == 0) {
            return 0;
        }
        if (strategy == ScoringStrategyType.REQUESTED_TO_CAPACITY_RATIO) {
            return Math.round((double) weightedScore / weightSum);
        }
        return weightedScore / weightSum;
    }

    /** The shape function at a utilization, interpolated linearly between points and scaled from 0..10 to 0..100. */
    long shapeScore(long utilization) {
        long scale = MAX_NODE_SCORE / 10;
        UtilizationShapePoint first = shape.get(0);
        if (utilization <= first.utilization()) {
            return first.score() * scale;
        }
        for (int i = 1; i < shape.size(); i++) {
            UtilizationShapePoint point = shape.get(i);
            if (utilization <= point.utilization()) {
                UtilizationShapePoint previous = shape.get(i - 1);
                long previousScore = previous.score() * scale;
                long pointScore = point.score() * scale;
                return previousScore + (pointScore - previousScore) * (utilization - previous.utilization()) / (point.utilization() - previous.utilization());
            }
        }
        return shape.get(shape.size() - 1).score() * scale;
    }

    @Override
    public List<ClusterEvent> eventsToRegister() {
        return List.of(
                new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN, "AssignedPodDeleteOrScaleDown"),
                new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE | ActionType.UPDATE_NODE_TAINT, "NodeAddOrAllocatableChange"),
                new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_SCALE_DOWN | ActionType.UPDATE_POD_OTHER, "PodUpdate"));
    }
}
