package io.k4j.scheduler.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.plugins.noderesources.NodeResourcesFit;
import io.k4j.scheduler.plugins.noderesources.ScoringStrategyType;
import io.k4j.scheduler.testing.FakeSchedulerClient;
import io.k4j.scheduler.testing.SimpleNominator;
import io.k4j.scheduler.testing.TestFrameworks;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerConfigLoaderTest {
    @Test
    void defaultsHaveOneDefaultSchedulerProfileWithUpstreamWeights() {
        KubeSchedulerConfiguration config = SchedulerConfigLoader.defaults();
        Framework framework = TestFrameworks.build(config, new FakeSchedulerClient(), new SimpleNominator()).get("default-scheduler");

        assertThat(config.podInitialBackoff().toSeconds()).isEqualTo(1);
        assertThat(config.podMaxBackoff().toSeconds()).isEqualTo(10);
        assertThat(framework.plugins().scoreWeights()).containsAllEntriesOf(Map.of("TaintToleration", 3, "NodeAffinity", 2,
                "PodTopologySpread", 2, "InterPodAffinity", 2, "NodeResourcesFit", 1, "NodeResourcesBalancedAllocation", 1, "ImageLocality", 1));
        assertThat(framework.plugins().filter()).extracting(plugin -> plugin.name()).containsExactly("NodeUnschedulable", "NodeName",
                "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity");
        assertThat(framework.plugins().postFilter()).extracting(plugin -> plugin.name()).containsExactly("DefaultPreemption");
    }

    @Test
    void profilesDisablePluginsSetWeightsAndArgs() {
        KubeSchedulerConfiguration config = SchedulerConfigLoader.parse("""
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                percentageOfNodesToScore: 30
                profiles:
                - schedulerName: default-scheduler
                - schedulerName: bin-packing
                  plugins:
                    score:
                      disabled:
                      - name: ImageLocality
                      enabled:
                      - name: NodeResourcesFit
                        weight: 5
                    postFilter:
                      disabled:
                      - name: "*"
                  pluginConfig:
                  - name: NodeResourcesFit
                    args:
                      scoringStrategy:
                        type: MostAllocated
                """);
        Map<String, Framework> frameworks = TestFrameworks.build(config, new FakeSchedulerClient(), new SimpleNominator());
        Framework binPacking = frameworks.get("bin-packing");

        assertThat(frameworks).containsOnlyKeys("default-scheduler", "bin-packing");
        assertThat(config.percentageOfNodesToScore()).isEqualTo(30);
        assertThat(binPacking.plugins().scoreWeights()).containsEntry("NodeResourcesFit", 5).doesNotContainKey("ImageLocality");
        assertThat(binPacking.plugins().postFilter()).isEmpty();
        assertThat(((NodeResourcesFit) binPacking.plugins().all().get("NodeResourcesFit")).strategy()).isEqualTo(ScoringStrategyType.MOST_ALLOCATED);
    }

    @Test
    void invalidFilesNameEveryBadField() {
        assertThatThrownBy(() -> SchedulerConfigLoader.parse("""
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                percentageOfNodesToScore: 120
                profiles:
                - schedulerName: a
                - schedulerName: a
                  unknownThing: 1
                """))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]")
                .hasMessageContaining("profiles[1].schedulerName: Duplicate value: \"a\"")
                .hasMessageContaining("profiles[1].unknownThing: unknown field \"unknownThing\"");
    }

    @Test
    void unknownPluginsAndBadArgsAreRejectedWithTheirPath() {
        KubeSchedulerConfiguration unknownPlugin = SchedulerConfigLoader.parse("""
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                profiles:
                - schedulerName: default-scheduler
                  plugins:
                    filter:
                      enabled:
                      - name: NoSuchPlugin
                """);
        KubeSchedulerConfiguration badArgs = SchedulerConfigLoader.parse("""
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                profiles:
                - schedulerName: default-scheduler
                  pluginConfig:
                  - name: NodeResourcesFit
                    args:
                      scoringStrategy:
                        type: Sometimes
                """);

        assertThatThrownBy(() -> TestFrameworks.build(unknownPlugin, new FakeSchedulerClient(), new SimpleNominator()))
                .hasMessageContaining("profiles[0].plugins.filter.enabled[0].name: Invalid value: \"NoSuchPlugin\": plugin does not exist");
        assertThatThrownBy(() -> TestFrameworks.build(badArgs, new FakeSchedulerClient(), new SimpleNominator()))
                .hasMessageContaining("profiles[0].pluginConfig[NodeResourcesFit].args.scoringStrategy.type: Unsupported value: \"Sometimes\"");
    }

    @Test
    void wrongApiVersionIsRejected() {
        assertThatThrownBy(() -> SchedulerConfigLoader.parse("apiVersion: v1\nkind: KubeSchedulerConfiguration\n"))
                .hasMessageContaining("apiVersion: Unsupported value: \"v1\"");
    }
}
