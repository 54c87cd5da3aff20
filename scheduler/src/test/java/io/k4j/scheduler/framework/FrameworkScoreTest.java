package io.k4j.scheduler.framework;

import static io.k4j.scheduler.testing.TestObjects.node;
import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.scheduler.plugins.queuesort.PrioritySort;
import io.k4j.scheduler.testing.FakeSchedulerClient;
import io.k4j.scheduler.testing.SimpleNominator;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FrameworkScoreTest {
    /** More nodes than the parallelizer runs on the calling thread, so that the pool's workers score too. */
    private static final int NODES = 300;

    private final Parallelizer parallelizer = new Parallelizer(2);
    private final List<NodeInfo> nodes = IntStream.range(0, NODES).mapToObj(i -> NodeInfo.of(node("node-" + i, "4", "8Gi"))).toList();
    private final PodInfo pod = new PodInfo(pod("p", "100m", "128Mi"));

    @AfterEach
    void stopPool() {
        parallelizer.shutdown();
    }

    @Test
    void totalsAreTheWeightedSumOfEveryPluginsNormalizedScore() {
        ScorePlugin byIndex = score("ByIndex", node -> index(node) % 101);
        ScorePlugin reversed = new Score("Reversed", node -> index(node) % 7) {
            @Override
            public void normalizeScores(CycleState state, PodInfo pod, List<NodeInfo> nodes, long[] scores) {
                ScorePlugin.defaultNormalize(MAX_NODE_SCORE, true, scores);
            }
        };
        Framework framework = framework(Map.of("ByIndex", 2, "Reversed", 3), byIndex, reversed);

        long[] totals = framework.runScorePlugins(new CycleState(), pod, nodes);

        assertThat(totals).hasSize(NODES);
        for (int i = 0; i < NODES; i++) {
            long expected = 2L * (i % 101) + 3L * (100 - 100 * (i % 7) / 6);
            assertThat(totals[i]).as("node-" + i).isEqualTo(expected);
        }
    }

    @Test
    void aSkippedPluginIsNotCalled() {
        List<String> called = java.util.Collections.synchronizedList(new ArrayList<>());
        ScorePlugin skipped = score("Skipped", node -> {
            called.add(node.name());
            return 100;
        });
        ScorePlugin counted = score("Counted", node -> 1);
        CycleState state = new CycleState();
        state.skipScorePlugins().add("Skipped");

        long[] totals = framework(Map.of(), skipped, counted).runScorePlugins(state, pod, nodes);

        assertThat(called).isEmpty();
        assertThat(totals).containsOnly(1);
    }

    @Test
    void aFailingPluginFailsTheCycleWithItsName() {
        ScorePlugin healthy = score("Healthy", node -> 1);
        ScorePlugin failing = score("Failing", node -> {
            if (index(node) == NODES - 1) {
                throw new IllegalStateException("no score for the last node");
            }
            return 1;
        });

        assertThatThrownBy(() -> framework(Map.of(), healthy, failing).runScorePlugins(new CycleState(), pod, nodes))
                .isInstanceOfSatisfying(PluginException.class, e -> {
                    assertThat(e.status().plugin()).isEqualTo("Failing");
                    assertThat(e.status().reasons()).anySatisfy(reason -> assertThat(reason).contains("no score for the last node"));
                });
    }

    @Test
    void aScoreOutsideTheRangeAfterNormalizingIsAnError() {
        ScorePlugin tooHigh = score("TooHigh", node -> 101);

        assertThatThrownBy(() -> framework(Map.of(), tooHigh).runScorePlugins(new CycleState(), pod, nodes))
                .isInstanceOfSatisfying(PluginException.class, e -> assertThat(e.status().reasons())
                        .containsExactly("plugin TooHigh returns an invalid score 101, it should in the range of [0, 100] after normalizing"));
    }

    private static int index(NodeInfo node) {
        return Integer.parseInt(node.name().substring("node-".length()));
    }

    private static ScorePlugin score(String name, ToLongFunction<NodeInfo> scores) {
        return new Score(name, scores);
    }

    private Framework framework(Map<String, Integer> weights, ScorePlugin... scorePlugins) {
        Map<String, Plugin> all = new LinkedHashMap<>();
        for (ScorePlugin plugin : scorePlugins) {
            all.put(plugin.name(), plugin);
        }
        BindPlugin binder = new BindPlugin() {
            @Override
            public String name() {
                return "Binder";
            }

            @Override
            public Status bind(CycleState state, PodInfo pod, String nodeName) {
                return Status.SUCCESS;
            }
        };
        Framework.Services services = new Framework.Services(ClusterView.empty(), new FakeSchedulerClient(), new SimpleNominator(), parallelizer,
                InstantSource.system());
        return new Framework("default-scheduler", services, 100, handle -> new Framework.PluginSet(all, new PrioritySort(), List.of(), List.of(),
                List.of(), List.of(), List.of(), List.of(scorePlugins), weights, List.of(), List.of(), List.of(), List.of(binder), List.of()));
    }

    private static class Score implements ScorePlugin {
        private final String name;
        private final ToLongFunction<NodeInfo> scores;

        Score(String name, ToLongFunction<NodeInfo> scores) {
            this.name = name;
            this.scores = scores;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public long score(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
            return scores.applyAsLong(nodeInfo);
        }
    }
}
