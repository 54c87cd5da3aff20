package io.k4j.scheduler.testing;

import io.k4j.scheduler.Profiles;
import io.k4j.scheduler.config.KubeSchedulerConfiguration;
import io.k4j.scheduler.config.SchedulerConfigLoader;
import io.k4j.scheduler.framework.ClusterView;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.Parallelizer;
import io.k4j.scheduler.framework.PodNominator;
import io.k4j.scheduler.plugins.InTreeRegistry;
import java.util.Map;

/** Frameworks built from real configurations with a fake client, for tests. */
public final class TestFrameworks {
    private TestFrameworks() {}

    public static Map<String, Framework> build(KubeSchedulerConfiguration config, FakeSchedulerClient client, PodNominator nominator) {
        return Profiles.build(config, InTreeRegistry.plugins(), new Framework.Services(ClusterView.empty(), client, nominator, new Parallelizer(2), java.time.InstantSource.system()));
    }

    public static Framework defaultFramework(FakeSchedulerClient client, PodNominator nominator) {
        return build(SchedulerConfigLoader.defaults(), client, nominator).get("default-scheduler");
    }
}
