package io.k4j.scheduler.framework;

/**
 * What a plugin keeps in {@link CycleState} between extension points of one scheduling cycle. Preemption and
 * nominated-pod evaluation copy the state, so mutable data must copy itself in {@link #copy()}.
 */
public interface StateData {
    /** A copy that can be changed without affecting this one; immutable data returns itself. */
    StateData copy();
}
