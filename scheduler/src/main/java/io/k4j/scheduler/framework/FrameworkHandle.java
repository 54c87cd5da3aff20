package io.k4j.scheduler.framework;

/**
 * What a plugin gets from its profile's framework when it is created: the current snapshot, cluster objects, the
 * apiserver client, the nominator, the parallelizer and a way to run the profile's filters. Thread-safe.
 */
public interface FrameworkHandle {
    String profileName();

    /** The snapshot of the current scheduling cycle. */
    Snapshot snapshot();

    ClusterView clusterView();

    SchedulerClient client();

    PodNominator nominator();

    Parallelizer parallelizer();

    java.time.InstantSource clock();

    PluginsRunner pluginsRunner();
}
