package io.k4j.scheduler.queue;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A binary min-heap whose items are also indexed by key, so that an item can be updated or removed in O(log n), as
 * upstream's {@code heap.Heap}. Not thread-safe.
 */
final class IndexedHeap<T> {
    private final Function<T, String> keyFunction;
    private final Comparator<T> comparator;
    private final List<T> items = new ArrayList<>();
    private final Map<String, Integer> positions = new HashMap<>();

    IndexedHeap(Function<T, String> keyFunction, Comparator<T> comparator) {
        this.keyFunction = requireNonNull(keyFunction, "keyFunction is null");
        this.comparator = requireNonNull(comparator, "comparator is null");
    }

    /** Adds the item, or replaces the item with the same key and restores the order. */
    void addOrUpdate(T item) {
        String key = keyFunction.apply(item);
        Integer position = positions.get(key);
        if (position != null) {
            items.set(position, item);
            if (!siftUp(position)) {
                siftDown(position);
            }
            return;
        }
        items.add(item);
        positions.put(key, items.size() - 1);
        siftUp(items.size() - 1);
    }

    T get(String key) {
        Integer position = positions.get(key);
        return position == null ? null : items.get(position);
    }

    boolean contains(String key) {
        return positions.containsKey(key);
    }

    T delete(String key) {
        Integer position = positions.get(key);
        if (position == null) {
            return null;
        }
        return removeAt(position);
    }

    T peek() {
        return items.isEmpty() ? null : items.get(0);
    }

    T poll() {
        return items.isEmpty() ? null : removeAt(0);
    }

    int size() {
        return items.size();
    }

    boolean isEmpty() {
        return items.isEmpty();
    }

    List<T> list() {
        return List.copyOf(items);
    }

    private T removeAt(int position) {
        T removed = items.get(position);
        positions.remove(keyFunction.apply(removed));
        T last = items.remove(items.size() - 1);
        if (position < items.size()) {
            items.set(position, last);
            positions.put(keyFunction.apply(last), position);
            if (!siftUp(position)) {
                siftDown(position);
            }
        }
        return removed;
    }

    private boolean siftUp(int position) {
        boolean moved = false;
        while (position > 0) {
            int parent = (position - 1) / 2;
            if (comparator.compare(items.get(position), items.get(parent)) >= 0) {
                break;
            }
            swap(position, parent);
            position = parent;
            moved = true;
        }
        return moved;
    }

    private void siftDown(int position) {
        int size = items.size();
        while (true) {
            int left = 2 * position + 1;
            if (left >= size) {
                return;
            }
            int smallest = left;
            int right = left + 1;
            if (right < size && comparator.compare(items.get(right), items.get(left)) < 0) {
                smallest = right;
            }
            if (comparator.compare(items.get(smallest), items.get(position)) >= 0) {
                return;
            }
            swap(position, smallest);
            position = smallest;
        }
    }

    private void swap(int first, int second) {
        T firstItem = items.get(first);
        T secondItem = items.get(second);
        items.set(first, secondItem);
        items.set(second, firstItem);
        positions.put(keyFunction.apply(secondItem), first);
        positions.put(keyFunction.apply(firstItem), second);
    }
}
