package io.k4j.apiserver.registry.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BitmapAllocatorTest {
    @Test
    void dynamicAllocationFillsTheUpperBandBeforeTheStaticBand() {
        BitmapAllocator allocator = new BitmapAllocator(20, 4, new Random(7));
        Set<Integer> taken = new HashSet<>();
        for (int index = 0; index < 16; index++) {
            int offset = allocator.allocateNext().orElseThrow();
            assertThat(offset).isBetween(4, 19);
            assertThat(taken.add(offset)).isTrue();
        }
        for (int index = 0; index < 4; index++) {
            assertThat(allocator.allocateNext().orElseThrow()).isBetween(0, 3);
        }
        assertThat(allocator.allocateNext()).isEqualTo(OptionalInt.empty());
        assertThat(allocator.takenCount()).isEqualTo(20);
    }

    @Test
    void requestedItemsAreTakenOnceAndReleased() {
        BitmapAllocator allocator = new BitmapAllocator(10, 2, new Random(1));
        assertThat(allocator.allocate(3)).isTrue();
        assertThat(allocator.allocate(3)).isFalse();
        assertThat(allocator.isTaken(3)).isTrue();
        allocator.release(3);
        assertThat(allocator.isTaken(3)).isFalse();
        assertThat(allocator.allocate(3)).isTrue();
    }

    @Test
    void staticBandFollowsUpstreamBounds() {
        assertThat(BitmapAllocator.staticBand(10, 16, 16, 256)).isZero();
        assertThat(BitmapAllocator.staticBand(254, 16, 16, 256)).isEqualTo(16);
        assertThat(BitmapAllocator.staticBand(1_048_574, 16, 16, 256)).isEqualTo(256);
        assertThat(BitmapAllocator.staticBand(2768, 32, 16, 128)).isEqualTo(86);
    }
}
