package io.k4j.scheduler.plugins;

import io.k4j.scheduler.framework.PluginFactory;
import io.k4j.scheduler.plugins.defaultbinder.DefaultBinder;
import io.k4j.scheduler.plugins.defaultpreemption.DefaultPreemption;
import io.k4j.scheduler.plugins.imagelocality.ImageLocality;
import io.k4j.scheduler.plugins.interpodaffinity.InterPodAffinity;
import io.k4j.scheduler.plugins.nodeaffinity.NodeAffinity;
import io.k4j.scheduler.plugins.nodename.NodeName;
import io.k4j.scheduler.plugins.nodeports.NodePorts;
import io.k4j.scheduler.plugins.noderesources.NodeResourcesBalancedAllocation;
import io.k4j.scheduler.plugins.noderesources.NodeResourcesFit;
import io.k4j.scheduler.plugins.nodeunschedulable.NodeUnschedulable;
import io.k4j.scheduler.plugins.podtopologyspread.PodTopologySpread;
import io.k4j.scheduler.plugins.queuesort.PrioritySort;
import io.k4j.scheduler.plugins.schedulinggates.SchedulingGates;
import io.k4j.scheduler.plugins.tainttoleration.TaintToleration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The in-tree plugins by name, each with the factory that builds it from its args, as upstream's registry.go. */
public final class InTreeRegistry {
    /**
     * Upstream in-tree plugins k4j does not implement (volumes and dynamic resources): a configuration may disable
     * them, but enabling one is an error.
     */
    public static final Set<String> UNSUPPORTED = Set.of("VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
            "DynamicResources", "EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits");

    private InTreeRegistry() {}

    public static Map<String, PluginFactory> plugins() {
        Map<String, PluginFactory> registry = new LinkedHashMap<>();
        registry.put(PrioritySort.NAME, (args, handle) -> new PrioritySort());
        registry.put(SchedulingGates.NAME, (args, handle) -> new SchedulingGates());
        registry.put(NodeUnschedulable.NAME, (args, handle) -> new NodeUnschedulable());
        registry.put(NodeName.NAME, (args, handle) -> new NodeName());
        registry.put(TaintToleration.NAME, (args, handle) -> new TaintToleration());
        registry.put(NodeAffinity.NAME, (args, handle) -> NodeAffinity.fromArgs(args));
        registry.put(NodePorts.NAME, (args, handle) -> new NodePorts());
        registry.put(NodeResourcesFit.NAME, (args, handle) -> NodeResourcesFit.fromArgs(args));
        registry.put(NodeResourcesBalancedAllocation.NAME, (args, handle) -> NodeResourcesBalancedAllocation.fromArgs(args));
        registry.put(ImageLocality.NAME, (args, handle) -> new ImageLocality(handle));
        registry.put(InterPodAffinity.NAME, InterPodAffinity::fromArgs);
        registry.put(PodTopologySpread.NAME, PodTopologySpread::fromArgs);
        registry.put(DefaultPreemption.NAME, DefaultPreemption::fromArgs);
        registry.put(DefaultBinder.NAME, (args, handle) -> new DefaultBinder(handle));
        return Map.copyOf(registry);
    }
}
