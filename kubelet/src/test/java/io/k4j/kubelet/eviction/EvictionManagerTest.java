package io.k4j.kubelet.eviction;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.kubelet.config.StaticPods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

class EvictionManagerTest {
    private static final long MI = 1024 * 1024;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Map<Signal, Observation> observations = new EnumMap<>(Signal.class);
    private final Map<String, PodUsage> usage = new HashMap<>();
    private final List<Pod> active = new ArrayList<>();
    private final List<String> evictions = new ArrayList<>();
    private final List<Signal> reclaims = new ArrayList<>();
    private long reclaimable;
    private final EvictionManager manager = new EvictionManager(EvictionThresholds.parse(EvictionThresholds.DEFAULT_HARD),
            () -> Map.copyOf(observations), () -> Map.copyOf(usage), () -> List.copyOf(active),
            (pod, message, grace) -> {
                evictions.add(pod.getMetadata().getName() + ": " + message);
                active.remove(pod);
            },
            signal -> {
                reclaims.add(signal);
                long freed = reclaimable;
                if (freed > 0) {
                    Observation disk = observations.get(Signal.NODEFS_AVAILABLE);
                    observations.put(Signal.NODEFS_AVAILABLE, new Observation(disk.available() + freed, disk.capacity()));
                    reclaimable = 0;
                }
                return freed;
            },
            clock, EvictionManager.PRESSURE_TRANSITION_PERIOD);

    private static Pod pod(String name, String memoryRequest, Integer priority) {
        PodBuilder builder = new PodBuilder().withNewMetadata().withName(name).withNamespace("default").withUid(name)
                .endMetadata().withNewSpec().withPriority(priority).addNewContainer().withName("c").withImage("busybox")
                .withNewResources().endResources().endContainer().endSpec();
        if (memoryRequest != null) {
            builder.editSpec().editFirstContainer().editResources()
                    .addToRequests("memory", new Quantity(memoryRequest)).endResources().endContainer().endSpec();
        }
        return builder.build();
    }

    private void uses(String pod, long memoryBytes) {
        usage.put(pod, new PodUsage(Map.of("c", new PodUsage.ContainerUsage(memoryBytes, 0, 0))));
    }

    private void memoryAvailable(long bytes) {
        observations.put(Signal.MEMORY_AVAILABLE, new Observation(bytes, 8192 * MI));
    }

    @Test
    void withoutPressureNothingHappens() {
        memoryAvailable(4096 * MI);
        observations.put(Signal.NODEFS_AVAILABLE, new Observation(500, 1000));
        active.add(pod("a", null, null));

        assertThat(manager.synchronize()).isEmpty();
        assertThat(manager.memoryPressure()).isFalse();
        assertThat(manager.diskPressure()).isFalse();
        assertThat(manager.admit(pod("new", null, null))).isEmpty();
    }

    @Test
    void underMemoryPressureOnePodPerPassIsEvictedInUpstreamsOrder() {
        memoryAvailable(50 * MI);
        Pod guaranteedSmall = pod("within-request", "200Mi", null);
        Pod bestEffort = pod("best-effort", null, null);
        Pod bigger = pod("bigger-excess", "10Mi", null);
        Pod important = pod("important", null, 1000);
        Pod critical = pod("critical", null, 2_000_000_000);
        active.addAll(List.of(guaranteedSmall, bestEffort, bigger, important, critical));
        uses("within-request", 100 * MI);
        uses("best-effort", 20 * MI);
        uses("bigger-excess", 60 * MI);
        uses("important", 500 * MI);
        uses("critical", 900 * MI);

        for (int pass = 0; pass < 5; pass++) {
            manager.synchronize();
        }

        assertThat(manager.memoryPressure()).isTrue();
        assertThat(evictions).extracting(eviction -> eviction.substring(0, eviction.indexOf(':')))
                .containsExactly("bigger-excess", "best-effort", "important", "within-request");
        assertThat(evictions.getFirst()).isEqualTo("bigger-excess: The node was low on resource: memory. "
                + "Threshold quantity: 100Mi, available: 50Mi. Container c was using 60Mi, request is 10Mi, "
                + "has larger consumption of memory. ");
        assertThat(evictions.get(3)).isEqualTo("within-request: The node was low on resource: memory. "
                + "Threshold quantity: 100Mi, available: 50Mi. ");
    }

    @Test
    void staticAndMirrorPodsAreNeverEvicted() {
        memoryAvailable(MI);
        active.add(new PodBuilder(pod("static", null, null)).editMetadata()
                .addToAnnotations(StaticPods.CONFIG_SOURCE_ANNOTATION, "file").endMetadata().build());

        assertThat(manager.synchronize()).isEmpty();
        assertThat(evictions).isEmpty();
    }

    @Test
    void memoryPressureRefusesBestEffortPodsUnlessTheyTolerateItAndDiskPressureRefusesAll() {
        memoryAvailable(MI);
        manager.synchronize();

        assertThat(manager.admit(pod("be", null, null))).contains("The node had condition: [MemoryPressure]. ");
        assertThat(manager.admit(pod("burstable", "10Mi", null))).isEmpty();
        assertThat(manager.admit(new PodBuilder(pod("tolerant", null, null)).editSpec().addNewToleration()
                .withKey("node.kubernetes.io/memory-pressure").withOperator("Exists").withEffect("NoSchedule")
                .endToleration().endSpec().build())).isEmpty();
        assertThat(manager.admit(new PodBuilder(pod("static", null, null)).editMetadata()
                .addToAnnotations(StaticPods.CONFIG_SOURCE_ANNOTATION, "file").endMetadata().build())).isEmpty();

        observations.put(Signal.NODEFS_AVAILABLE, new Observation(1, 1000));
        manager.synchronize();
        assertThat(manager.diskPressure()).isTrue();
        assertThat(manager.admit(pod("burstable", "10Mi", null)))
                .contains("The node had condition: [MemoryPressure DiskPressure]. ");
    }

    @Test
    void diskPressureReclaimsImagesBeforeEvictingPods() {
        memoryAvailable(4096 * MI);
        observations.put(Signal.NODEFS_AVAILABLE, new Observation(50, 1000));
        active.add(pod("a", null, null));
        reclaimable = 500;

        assertThat(manager.synchronize()).isEmpty();
        assertThat(reclaims).containsExactly(Signal.NODEFS_AVAILABLE);
        assertThat(evictions).isEmpty();
        assertThat(manager.diskPressure()).as("the threshold was met in this pass").isTrue();

        observations.put(Signal.NODEFS_AVAILABLE, new Observation(10, 1000));
        assertThat(manager.synchronize()).isPresent();
        assertThat(evictions).singleElement().asString().startsWith("a: The node was low on resource: ephemeral-storage. ");
    }

    @Test
    void theConditionsStayForTheTransitionPeriodAfterThePressureEnds() {
        memoryAvailable(MI);
        manager.synchronize();
        memoryAvailable(4096 * MI);
        clock.advance(Duration.ofMinutes(4));
        manager.synchronize();
        assertThat(manager.memoryPressure()).isTrue();

        clock.advance(Duration.ofMinutes(2));
        manager.synchronize();
        assertThat(manager.memoryPressure()).isFalse();
    }
}
