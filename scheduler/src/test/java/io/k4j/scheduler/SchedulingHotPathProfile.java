package io.k4j.scheduler;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodAntiAffinityBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.k4j.scheduler.cache.SchedulerCache;
import io.k4j.scheduler.config.SchedulerConfigLoader;
import io.k4j.scheduler.framework.ClusterView;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.Parallelizer;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PodNominator;
import io.k4j.scheduler.framework.SchedulerClient;
import io.k4j.scheduler.plugins.InTreeRegistry;
import io.k4j.scheduler.queue.SchedulingQueue;
import io.k4j.scheduler.testing.TestObjects;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Not a test: runs the scheduling loop in-process over many nodes with a client that only counts bindings, and prints
 * the scheduling cycles per second, to profile the scheduler's own hot path (with JFR) apart from the apiserver. Run with
 * {@code java -cp <scheduler test classpath> io.k4j.scheduler.SchedulingHotPathProfile <basic|anti-affinity|spread> <nodes> <pods>}.
 */
public final class SchedulingHotPathProfile {
    private SchedulingHotPathProfile() {}

    public static void main(String[] arguments) throws Exception {
        String kind = arguments.length > 0 ? arguments[0] : "basic";
        int nodeCount = arguments.length > 1 ? Integer.parseInt(arguments[1]) : 5_000;
        int podCount = arguments.length > 2 ? Integer.parseInt(arguments[2]) : 10_000;
        Map<String, Pod> pods = new ConcurrentHashMap<>();
        AtomicInteger bound = new AtomicInteger();
        SchedulerCache cache = new SchedulerCache(InstantSource.system(), Duration.ofSeconds(30));
        EventHandlers[] handlers = new EventHandlers[1];
        SchedulerClient client = new SchedulerClient() {
            @Override
            public void bind(Pod pod, String nodeName) {
                Pod boundPod = new PodBuilder(pod).editSpec().withNodeName(nodeName).endSpec().build();
                handlers[0].onPodUpdate(pod, boundPod);
                bound.incrementAndGet();
            }

            @Override
            public void deletePod(Pod pod) {}

            @Override
            public void patchPodStatus(Pod pod, PodCondition condition, String nominatedNodeName) {}

            @Override
            public void recordEvent(Pod regarding, String type, String reason, String action, String message) {}
        };
        PodNominator nominator = new PodNominator() {
            @Override
            public void addNominatedPod(PodInfo pod, String nodeName) {}

            @Override
            public void deleteNominatedPodIfExists(PodInfo pod) {}

            @Override
            public List<PodInfo> nominatedPodsForNode(String nodeName) {
                return List.of();
            }
        };
        Map<String, Framework> frameworks = Profiles.build(SchedulerConfigLoader.defaults(), InTreeRegistry.plugins(),
                new Framework.Services(ClusterView.empty(), client, nominator, new Parallelizer(2), InstantSource.system()));
        SchedulingQueue queue = new SchedulingQueue(InstantSource.system(), frameworks);
        ExecutorService executor = Executors.newFixedThreadPool(2);
        Scheduler scheduler = new Scheduler(frameworks, queue, cache, client, (namespace, name) -> pods.get(namespace + "/" + name), 0, executor,
                InstantSource.system());
        handlers[0] = new EventHandlers(cache, queue, Set.of("default-scheduler"));
        String[] zones = {"zone-a", "zone-b", "zone-c"};
        for (int i = 0; i < nodeCount; i++) {
            Node node = TestObjects.node("node-" + i, "4", "32Gi", Map.of("topology.kubernetes.io/zone", zones[i % 3]));
            handlers[0].onNodeAdd(node);
        }
        for (int round = 0; round < 2; round++) {
            int count = round == 0 ? Math.min(podCount, 500) : podCount;
            long start = System.nanoTime();
            int before = bound.get();
            for (int i = 0; i < count; i++) {
                Pod pod = pod(kind, "r" + round + "-pod-" + i);
                pods.put("default/" + pod.getMetadata().getName(), pod);
                handlers[0].onPodAdd(pod);
            }
            while (bound.get() - before < count) {
                if (!scheduler.scheduleOne(Duration.ofSeconds(5))) {
                    break;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%s round %d: %d pods on %d nodes in %.2f s: %.0f pods/s%n", kind, round, bound.get() - before, nodeCount, seconds,
                    (bound.get() - before) / seconds);
        }
        executor.shutdownNow();
    }

    private static Pod pod(String kind, String name) {
        Pod pod = TestObjects.withLabels(TestObjects.pod(name, "10m", "16Mi"), Map.of("bench", kind));
        return switch (kind) {
            case "basic" -> pod;
            case "anti-affinity" -> new PodBuilder(pod).editSpec().withNewAffinity().withPodAntiAffinity(new PodAntiAffinityBuilder()
                    .withRequiredDuringSchedulingIgnoredDuringExecution(new PodAffinityTermBuilder()
                            .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("bench", kind).build())
                            .withTopologyKey("kubernetes.io/hostname").build())
                    .build()).endAffinity().endSpec().build();
            case "spread" -> new PodBuilder(pod).editSpec().withTopologySpreadConstraints(new TopologySpreadConstraintBuilder()
                    .withMaxSkew(1).withTopologyKey("topology.kubernetes.io/zone").withWhenUnsatisfiable("DoNotSchedule")
                    .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("bench", kind).build()).build()).endSpec().build();
            default -> throw new IllegalArgumentException("unknown kind " + kind);
        };
    }
}
