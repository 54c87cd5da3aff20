package io.k4j.scheduler.framework;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Data that plugins pass between the extension points of one scheduling cycle under their own keys (for example
 * {@code "PreFilterNodeResourcesFit"}). Written by PreFilter/PreScore on the scheduling thread and only read by the
 * parallel Filter and Score calls, so reads need no locking; not safe for concurrent writes.
 */
public final class CycleState {
    private final Map<String, StateData> data;
    private final Set<String> skipFilterPlugins = new HashSet<>();
    private final Set<String> skipScorePlugins = new HashSet<>();
    private boolean[] skipFilterMask;

    public CycleState() {
        this.data = new HashMap<>();
    }

    private CycleState(Map<String, StateData> data) {
        this.data = data;
    }

    public void write(String key, StateData value) {
        data.put(key, value);
    }

    /** The value under {@code key}, or null when the writing extension point did not run. */
    public StateData read(String key) {
        return data.get(key);
    }

    public void delete(String key) {
        data.remove(key);
    }

    /** Plugins whose PreFilter returned Skip; their Filter is not called in this cycle. */
    public Set<String> skipFilterPlugins() {
        return skipFilterPlugins;
    }

    /**
     * The skipped filter plugins as a mask over the profile's filter list, computed once per cycle so that the
     * per-node loop needs no set lookups; null until computed.
     */
    boolean[] skipFilterMask() {
        return skipFilterMask;
    }

    void setSkipFilterMask(boolean[] mask) {
        this.skipFilterMask = mask;
    }

    /** Plugins whose PreScore returned Skip; their Score is not called in this cycle. */
    public Set<String> skipScorePlugins() {
        return skipScorePlugins;
    }

    /** A deep enough copy for what-if evaluation: every value copies itself. */
    public CycleState copy() {
        Map<String, StateData> copied = new HashMap<>(data.size() * 2);
        data.forEach((key, value) -> copied.put(key, value == null ? null : value.copy()));
        CycleState state = new CycleState(copied);
        state.skipFilterPlugins.addAll(skipFilterPlugins);
        state.skipScorePlugins.addAll(skipScorePlugins);
        state.skipFilterMask = skipFilterMask;
        return state;
    }
}
