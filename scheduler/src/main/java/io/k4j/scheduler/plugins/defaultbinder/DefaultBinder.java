package io.k4j.scheduler.plugins.defaultbinder;

import static java.util.Objects.requireNonNull;

import io.k4j.scheduler.framework.BindPlugin;
import io.k4j.scheduler.framework.CycleState;
import io.k4j.scheduler.framework.FrameworkHandle;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.SchedulerClient;
import io.k4j.scheduler.framework.Status;
import io.k4j.scheduler.plugins.Names;

/** Binds a pod by creating its {@code pods/binding} subresource. Thread-safe. */
public final class DefaultBinder implements BindPlugin {
    public static final String NAME = Names.DEFAULT_BINDER;

    private final FrameworkHandle handle;

    public DefaultBinder(FrameworkHandle handle) {
        this.handle = requireNonNull(handle, "handle is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Status bind(CycleState state, PodInfo pod, String nodeName) {
        try {
            handle.client().bind(pod.pod(), nodeName);
            return Status.SUCCESS;
        } catch (SchedulerClient.SchedulerClientException e) {
            return Status.error(e);
        }
    }
}
