package io.k4j.kubelet.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodIpAllocatorTest {
    private final PodIpAllocator allocator = new PodIpAllocator("10.42.0.0/16");

    @Test
    void usesTheNodesPodCidrWhenItHasOne() {
        assertThat(allocator.allocate("node-a", Optional.of("10.42.7.0/24"), "pod-1")).isEqualTo("10.42.7.2");
        assertThat(allocator.allocate("node-a", Optional.of("10.42.7.0/24"), "pod-2")).isEqualTo("10.42.7.3");
        assertThat(allocator.allocate("node-a", Optional.of("10.42.7.0/24"), "pod-1")).isEqualTo("10.42.7.2");
    }

    @Test
    void nodesWithoutAPodCidrGetTheirOwnSliceFromTheTopOfTheClusterCidr() {
        assertThat(allocator.allocate("node-a", Optional.empty(), "pod-1")).isEqualTo("10.42.255.2");
        assertThat(allocator.allocate("node-b", Optional.empty(), "pod-2")).isEqualTo("10.42.254.2");
        assertThat(allocator.allocate("node-a", Optional.empty(), "pod-3")).isEqualTo("10.42.255.3");

        allocator.forgetNode("node-a");
        assertThat(allocator.allocate("node-c", Optional.empty(), "pod-4")).as("node-a's slice is free again").isEqualTo("10.42.255.2");
    }

    @Test
    void aPodCidrAssignedLaterIsUsedForNewPods() {
        assertThat(allocator.allocate("node-a", Optional.empty(), "pod-1")).isEqualTo("10.42.255.2");

        assertThat(allocator.allocate("node-a", Optional.of("10.42.0.0/24"), "pod-2")).isEqualTo("10.42.0.2");
        assertThat(allocator.allocate("node-b", Optional.empty(), "pod-3")).as("the slice went back").isEqualTo("10.42.255.2");
    }

    @Test
    void releasedAndReservedAddresses() {
        allocator.reserve("node-a", Optional.of("10.42.7.0/24"), "pod-1", "10.42.7.2");
        assertThat(allocator.allocate("node-a", Optional.of("10.42.7.0/24"), "pod-2")).isEqualTo("10.42.7.3");
        assertThat(allocator.allocate("node-a", Optional.of("10.42.7.0/24"), "pod-1")).isEqualTo("10.42.7.2");

        allocator.release("node-a", "pod-2");
        assertThat(allocator.allocate("node-a", Optional.of("10.42.7.0/24"), "pod-2")).as("round robin after a release").isEqualTo("10.42.7.4");
    }

    @Test
    void aSmallClusterCidrIsSharedRatherThanLeavingPodsWithoutAddresses() {
        PodIpAllocator small = new PodIpAllocator("10.42.0.0/23");

        assertThat(small.allocate("node-a", Optional.empty(), "pod-1")).isEqualTo("10.42.1.2");
        assertThat(small.allocate("node-b", Optional.empty(), "pod-2")).isEqualTo("10.42.0.2");
        assertThat(small.allocate("node-c", Optional.empty(), "pod-3")).startsWith("10.42.");
    }
}
