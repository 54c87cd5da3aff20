package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * An immutable map from string keys to values, sorted by key: every change returns a new map that shares all but
 * O(log n) nodes with the old one, so a version of the map can be kept for later at no cost. The watch cache keeps
 * the state a paged list started from this way, so each continued page resumes by key in O(log n + page) instead of
 * copying or re-reading everything.
 *
 * <p>A weight-balanced binary tree (Adams' trees with the parameters proven correct by Hirai and Yamamoto:
 * delta 3, ratio 2). Each node knows the size of its subtree, which gives how many keys lie in a range in O(log n)
 * (a page's {@code remainingItemCount}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param <V> the values
 */
final class PersistentSortedMap<V> implements Iterable<Map.Entry<String, V>> {
    private static final int DELTA = 3;
    private static final int RATIO = 2;
    private static final PersistentSortedMap<?> EMPTY = new PersistentSortedMap<>(null);

    private final Node<V> root;

    private PersistentSortedMap(Node<V> root) {
        this.root = root;
    }

    @SuppressWarnings("unchecked")
    static <V> PersistentSortedMap<V> empty() {
        return (PersistentSortedMap<V>) EMPTY;
    }

    int size() {
        return size(root);
    }

    boolean isEmpty() {
        return root == null;
    }

    /** The value under {@code key}, or null. */
    V get(String key) {
        Node<V> node = root;
        while (node != null) {
            int comparison = key.compareTo(node.key);
            if (comparison == 0) {
                return node.value;
            }
            node = comparison < 0 ? node.left : node.right;
        }
        return null;
    }

    /** This map with {@code key} mapped to {@code value}. */
    PersistentSortedMap<V> put(String key, V value) {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
        return change(key, value).map();
    }

    /** This map without {@code key} (this map itself when the key is absent). */
    PersistentSortedMap<V> remove(String key) {
        return change(key, null).map();
    }

    /** A map after one change, and the value the change replaced (null when the key was absent). */
    record Changed<V>(PersistentSortedMap<V> map, V previous) {}

    /**
     * This map with {@code key} mapped to {@code value}, or without it when {@code value} is null, and the value that
     * was there: one descent, where a {@link #get} before a {@link #put} or {@link #remove} walks the path twice or
     * three times (the watch cache does this for every change it applies).
     */
    Changed<V> change(String key, V value) {
        requireNonNull(key, "key is null");
        Replaced<V> replaced = new Replaced<>();
        Node<V> changed = value == null ? deleteIfPresent(root, key, replaced) : insert(root, key, value, replaced);
        return new Changed<>(changed == root ? this : new PersistentSortedMap<>(changed), replaced.value);
    }

    /** How many keys are {@code >= from} and {@code < toExclusive}. */
    int count(String from, String toExclusive) {
        return Math.max(0, rank(toExclusive) - rank(from));
    }

    /** How many keys are strictly less than {@code key}. */
    int rank(String key) {
        int rank = 0;
        Node<V> node = root;
        while (node != null) {
            int comparison = key.compareTo(node.key);
            if (comparison <= 0) {
                node = node.left;
            } else {
                rank += size(node.left) + 1;
                node = node.right;
            }
        }
        return rank;
    }

    @Override
    public Iterator<Map.Entry<String, V>> iterator() {
        return iteratorFrom("");
    }

    /** The entries whose key is {@code >= from}, in key order. */
    Iterator<Map.Entry<String, V>> iteratorFrom(String from) {
        return new Ascending<>(root, from);
    }

    private static int size(Node<?> node) {
        return node == null ? 0 : node.size;
    }

    private static <V> Node<V> insert(Node<V> node, String key, V value, Replaced<V> replaced) {
        if (node == null) {
            return new Node<>(key, value, null, null);
        }
        int comparison = key.compareTo(node.key);
        if (comparison == 0) {
            replaced.value = node.value;
            return new Node<>(key, value, node.left, node.right);
        }
        if (comparison < 0) {
            return balance(node.key, node.value, insert(node.left, key, value, replaced), node.right);
        }
        return balance(node.key, node.value, node.left, insert(node.right, key, value, replaced));
    }

    /** Deletes {@code key}; the same node when it is absent below {@code node}. */
    private static <V> Node<V> deleteIfPresent(Node<V> node, String key, Replaced<V> replaced) {
        if (node == null) {
            return null;
        }
        int comparison = key.compareTo(node.key);
        if (comparison < 0) {
            Node<V> left = deleteIfPresent(node.left, key, replaced);
            return left == node.left ? node : balance(node.key, node.value, left, node.right);
        }
        if (comparison > 0) {
            Node<V> right = deleteIfPresent(node.right, key, replaced);
            return right == node.right ? node : balance(node.key, node.value, node.left, right);
        }
        replaced.value = node.value;
        return glue(node.left, node.right);
    }

    /** The value a change replaced, set on the way down. */
    private static final class Replaced<V> {
        private V value;
    }

    /** Joins two balanced subtrees whose keys are all ordered, left before right, by lifting the larger side's edge node. */
    private static <V> Node<V> glue(Node<V> left, Node<V> right) {
        if (left == null) {
            return right;
        }
        if (right == null) {
            return left;
        }
        if (left.size > right.size) {
            Node<V> max = left;
            while (max.right != null) {
                max = max.right;
            }
            return balance(max.key, max.value, deleteMax(left), right);
        }
        Node<V> min = right;
        while (min.left != null) {
            min = min.left;
        }
        return balance(min.key, min.value, left, deleteMin(right));
    }

    private static <V> Node<V> deleteMin(Node<V> node) {
        if (node.left == null) {
            return node.right;
        }
        return balance(node.key, node.value, deleteMin(node.left), node.right);
    }

    private static <V> Node<V> deleteMax(Node<V> node) {
        if (node.right == null) {
            return node.left;
        }
        return balance(node.key, node.value, node.left, deleteMax(node.right));
    }

    /** A node over two subtrees that were balanced and differ from balance by at most one insert or delete. */
    private static <V> Node<V> balance(String key, V value, Node<V> left, Node<V> right) {
        int leftSize = size(left);
        int rightSize = size(right);
        if (leftSize + rightSize <= 1) {
            return new Node<>(key, value, left, right);
        }
        if (rightSize > DELTA * leftSize) {
            return size(right.left) < RATIO * size(right.right)
                    ? new Node<>(right.key, right.value, new Node<>(key, value, left, right.left), right.right)
                    : new Node<>(right.left.key, right.left.value, new Node<>(key, value, left, right.left.left),
                            new Node<>(right.key, right.value, right.left.right, right.right));
        }
        if (leftSize > DELTA * rightSize) {
            return size(left.right) < RATIO * size(left.left)
                    ? new Node<>(left.key, left.value, left.left, new Node<>(key, value, left.right, right))
                    : new Node<>(left.right.key, left.right.value, new Node<>(left.key, left.value, left.left, left.right.left),
                            new Node<>(key, value, left.right.right, right));
        }
        return new Node<>(key, value, left, right);
    }

    /** Checks the tree's invariants (order, sizes, balance); for tests. */
    void checkInvariants() {
        check(root, null, null);
    }

    private static int check(Node<?> node, String lowerExclusive, String upperExclusive) {
        if (node == null) {
            return 0;
        }
        if ((lowerExclusive != null && node.key.compareTo(lowerExclusive) <= 0) || (upperExclusive != null && node.key.compareTo(upperExclusive) >= 0)) {
            throw new IllegalStateException("key out of order: " + node.key);
        }
        int left = check(node.left, lowerExclusive, node.key);
        int right = check(node.right, node.key, upperExclusive);
        if (node.size != left + right + 1) {
            throw new IllegalStateException("wrong size at " + node.key);
        }
        if (left + right > 1 && (left > DELTA * right || right > DELTA * left)) {
            throw new IllegalStateException("unbalanced at " + node.key + ": " + left + " / " + right);
        }
        return node.size;
    }

    private static final class Node<V> implements Map.Entry<String, V> {
        private final String key;
        private final V value;
        private final Node<V> left;
        private final Node<V> right;
        private final int size;

        private Node(String key, V value, Node<V> left, Node<V> right) {
            this.key = key;
            this.value = value;
            this.left = left;
            this.right = right;
            this.size = size(left) + size(right) + 1;
        }

        @Override
        public String getKey() {
            return key;
        }

        @Override
        public V getValue() {
            return value;
        }

        @Override
        public V setValue(V value) {
            throw new UnsupportedOperationException("the map is immutable");
        }

        @Override
        public String toString() {
            return key + "=" + value;
        }
    }

    /** In-order walk from a key, keeping the path of nodes still to visit. */
    private static final class Ascending<V> implements Iterator<Map.Entry<String, V>> {
        private final ArrayDeque<Node<V>> pending = new ArrayDeque<>();

        private Ascending(Node<V> root, String from) {
            Node<V> node = root;
            while (node != null) {
                if (node.key.compareTo(from) >= 0) {
                    pending.push(node);
                    node = node.left;
                } else {
                    node = node.right;
                }
            }
        }

        @Override
        public boolean hasNext() {
            return !pending.isEmpty();
        }

        @Override
        public Map.Entry<String, V> next() {
            if (pending.isEmpty()) {
                throw new NoSuchElementException();
            }
            Node<V> next = pending.pop();
            for (Node<V> node = next.right; node != null; node = node.left) {
                pending.push(node);
            }
            return next;
        }
    }
}
