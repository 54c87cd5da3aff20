package io.k4j.apiserver.registry.core.service;

import java.util.BitSet;
import java.util.OptionalInt;
import java.util.random.RandomGenerator;

/**
 * Which of {@code size} consecutive items (addresses, ports) are taken, as upstream's allocation bitmap with a
 * static band: the first {@code staticBandSize} items are left for users who ask for a specific one (the cluster
 * DNS service's well-known address, say), so that dynamic allocation starts at a random item above them and falls
 * back to the static band only when everything above is taken. Not thread-safe: {@link ServiceAllocator} guards it.
 */
final class BitmapAllocator {
    private final int size;
    private final int staticBandSize;
    private final RandomGenerator random;
    private final BitSet taken;

    BitmapAllocator(int size, int staticBandSize, RandomGenerator random) {
        if (size <= 0 || staticBandSize < 0 || staticBandSize > size) {
            throw new IllegalArgumentException("bad bitmap size " + size + " with static band " + staticBandSize);
        }
        this.size = size;
        this.staticBandSize = staticBandSize;
        this.random = random;
        this.taken = new BitSet(size);
    }

    /**
     * Upstream's static band for a range: a sixteenth of it (or {@code divisor}th), at least {@code minimum} and at
     * most {@code maximum} items, none for ranges smaller than {@code minimum}.
     */
    static int staticBand(int size, int divisor, int minimum, int maximum) {
        if (size < minimum) {
            return 0;
        }
        return Math.max(minimum, Math.min(maximum, size / divisor));
    }

    int size() {
        return size;
    }

    /** Takes one item; false when it is already taken. */
    boolean allocate(int offset) {
        checkOffset(offset);
        if (taken.get(offset)) {
            return false;
        }
        taken.set(offset);
        return true;
    }

    /** Takes a free item, preferring the dynamic band; empty when every item is taken. */
    OptionalInt allocateNext() {
        OptionalInt found = findFree(staticBandSize, size);
        if (found.isEmpty()) {
            found = findFree(0, staticBandSize);
        }
        found.ifPresent(taken::set);
        return found;
    }

    /** A free item in [from, to), scanning from a random start and wrapping around. */
    private OptionalInt findFree(int from, int to) {
        if (from >= to) {
            return OptionalInt.empty();
        }
        int start = from + random.nextInt(to - from);
        int free = taken.nextClearBit(start);
        if (free < to) {
            return OptionalInt.of(free);
        }
        free = taken.nextClearBit(from);
        return free < start ? OptionalInt.of(free) : OptionalInt.empty();
    }

    void release(int offset) {
        checkOffset(offset);
        taken.clear(offset);
    }

    boolean isTaken(int offset) {
        checkOffset(offset);
        return taken.get(offset);
    }

    int takenCount() {
        return taken.cardinality();
    }

    void clear() {
        taken.clear();
    }

    private void checkOffset(int offset) {
        if (offset < 0 || offset >= size) {
            throw new IllegalArgumentException("offset " + offset + " outside 0.." + (size - 1));
        }
    }
}
