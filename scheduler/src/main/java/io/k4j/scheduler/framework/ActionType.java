package io.k4j.scheduler.framework;

/** Bits of what changed in a {@link ClusterEvent}, as upstream's {@code framework.ActionType}. */
public final class ActionType {
    public static final int ADD = 1;
    public static final int DELETE = 1 << 1;
    public static final int UPDATE_NODE_ALLOCATABLE = 1 << 2;
    public static final int UPDATE_NODE_LABEL = 1 << 3;
    public static final int UPDATE_NODE_TAINT = 1 << 4;
    public static final int UPDATE_NODE_CONDITION = 1 << 5;
    public static final int UPDATE_NODE_ANNOTATION = 1 << 6;
    public static final int UPDATE_POD_LABEL = 1 << 7;
    public static final int UPDATE_POD_SCALE_DOWN = 1 << 8;
    public static final int UPDATE_POD_TOLERATIONS = 1 << 9;
    public static final int UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10;
    public static final int UPDATE_POD_OTHER = 1 << 11;
    public static final int UPDATE = UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
            | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATIONS
            | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_OTHER;
    public static final int ALL = ADD | DELETE | UPDATE;

    private ActionType() {}
}
