package io.k4j.scheduler.plugins.queuesort;

import io.k4j.scheduler.framework.QueueSortPlugin;
import io.k4j.scheduler.framework.QueuedPodInfo;
import io.k4j.scheduler.plugins.Names;

/** Orders the active queue by pod priority, highest first, then by the time the pod was queued. Thread-safe. */
public final class PrioritySort implements QueueSortPlugin {
    public static final String NAME = Names.PRIORITY_SORT;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int compare(QueuedPodInfo first, QueuedPodInfo second) {
        int byPriority = Integer.compare(second.podInfo().priority(), first.podInfo().priority());
        if (byPriority != 0) {
            return byPriority;
        }
        return first.timestamp().compareTo(second.timestamp());
    }
}
