package io.k4j.scheduler.plugins;

/** The registered names of the in-tree plugins, as upstream's {@code plugins/names}. */
public final class Names {
    public static final String PRIORITY_SORT = "PrioritySort";
    public static final String SCHEDULING_GATES = "SchedulingGates";
    public static final String NODE_UNSCHEDULABLE = "NodeUnschedulable";
    public static final String NODE_NAME = "NodeName";
    public static final String TAINT_TOLERATION = "TaintToleration";
    public static final String NODE_AFFINITY = "NodeAffinity";
    public static final String NODE_PORTS = "NodePorts";
    public static final String NODE_RESOURCES_FIT = "NodeResourcesFit";
    public static final String NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation";
    public static final String IMAGE_LOCALITY = "ImageLocality";
    public static final String INTER_POD_AFFINITY = "InterPodAffinity";
    public static final String POD_TOPOLOGY_SPREAD = "PodTopologySpread";
    public static final String DEFAULT_PREEMPTION = "DefaultPreemption";
    public static final String DEFAULT_BINDER = "DefaultBinder";

    private Names() {}
}
