package io.k4j.scheduler.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.k4j.scheduler.framework.SchedulerClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the scheduler's writes instead of sending them. Thread-safe. */
public final class FakeSchedulerClient implements SchedulerClient {
    /** A recorded event. */
    public record RecordedEvent(String pod, String type, String reason, String message) {}

    public final Map<String, String> bindings = new ConcurrentHashMap<>();
    public final List<String> deletedPods = new CopyOnWriteArrayList<>();
    public final Map<String, PodCondition> conditions = new ConcurrentHashMap<>();
    public final Map<String, String> nominatedNodes = new ConcurrentHashMap<>();
    public final List<RecordedEvent> events = new CopyOnWriteArrayList<>();
    public volatile boolean failBindings;

    private static String key(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    @Override
    public void bind(Pod pod, String nodeName) {
        if (failBindings) {
            throw new SchedulerClientException(409, "binding refused", null);
        }
        bindings.put(key(pod), nodeName);
    }

    @Override
    public void deletePod(Pod pod) {
        deletedPods.add(key(pod));
    }

    @Override
    public void patchPodStatus(Pod pod, PodCondition condition, String nominatedNodeName) {
        if (condition != null) {
            conditions.put(key(pod), condition);
        }
        if (nominatedNodeName != null) {
            nominatedNodes.put(key(pod), nominatedNodeName);
        }
    }

    @Override
    public void recordEvent(Pod regarding, String type, String reason, String action, String message) {
        events.add(new RecordedEvent(key(regarding), type, reason, message));
    }
}
