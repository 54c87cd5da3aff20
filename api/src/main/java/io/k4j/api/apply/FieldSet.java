package io.k4j.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A set of field paths, as structured-merge-diff's {@code fieldpath.Set}: a tree whose nodes are
 * {@link PathElement}s, where a node is a <em>member</em> when its path itself belongs to the set (a leaf field, or
 * a list entry or map that is owned as a whole) and a <em>child</em> when paths below it do. Both at once is
 * possible: a list entry owned as a whole whose fields are owned too.
 *
 * <p>Its {@code fieldsV1} form is upstream's: an object keyed by encoded path elements whose values are the
 * children's objects, with {@code "."} marking a node that is also a member and {@code {}} a member leaf.
 *
 * <p>Not thread-safe: {@link #insert} mutates; every other operation returns a new set.
 */
public final class FieldSet {
    private final NavigableSet<PathElement> members = new TreeSet<>();
    private final NavigableMap<PathElement, FieldSet> children = new TreeMap<>();
    /**
     * The {@code fieldsV1} object this set was decoded from, when it is exactly what {@link #toFieldsV1} gives for
     * the set: most writes leave most managers' fields alone, and copying their objects is much cheaper than
     * encoding them again. Dropped by any mutation.
     */
    private ObjectNode decodedFrom;

    public FieldSet() {}

    /** A set of the given paths. */
    public static FieldSet of(List<List<PathElement>> paths) {
        FieldSet set = new FieldSet();
        paths.forEach(set::insert);
        return set;
    }

    /** Adds one path; an empty path adds nothing. */
    public void insert(List<PathElement> path) {
        if (path.isEmpty()) {
            return;
        }
        forgetDecodedForm();
        FieldSet node = this;
        for (int i = 0; i < path.size() - 1; i++) {
            node = node.children.computeIfAbsent(path.get(i), element -> new FieldSet());
        }
        node.members.add(path.get(path.size() - 1));
    }

    /**
     * The node holding the paths below a prefix, created (empty) when missing: the caller must add a member or
     * child to it, as children are never left empty.
     */
    FieldSet nodeFor(List<PathElement> prefix) {
        forgetDecodedForm();
        FieldSet node = this;
        for (PathElement element : prefix) {
            node = node.childFor(element);
        }
        return node;
    }

    /** Whether the path is a member (not merely a prefix of members). */
    public boolean has(List<PathElement> path) {
        if (path.isEmpty()) {
            return false;
        }
        FieldSet node = this;
        for (int i = 0; i < path.size() - 1; i++) {
            node = node.children.get(path.get(i));
            if (node == null) {
                return false;
            }
        }
        return node.members.contains(path.get(path.size() - 1));
    }

    public boolean isEmpty() {
        // Children are never empty: every operation leaves out the empty ones.
        return members.isEmpty() && children.isEmpty();
    }

    NavigableSet<PathElement> members() {
        forgetDecodedForm();
        return members;
    }

    NavigableMap<PathElement, FieldSet> children() {
        forgetDecodedForm();
        return children;
    }

    /** The children below one element, or null. */
    FieldSet child(PathElement element) {
        forgetDecodedForm();
        return children.get(element);
    }

    /**
     * The node holding the paths below one element, created (empty) when missing: the caller must add a member or
     * child to it, as children are never left empty.
     */
    FieldSet childFor(PathElement element) {
        forgetDecodedForm();
        return children.computeIfAbsent(element, key -> new FieldSet());
    }

    private void forgetDecodedForm() {
        // Only written when set, so that sets shared read-only between threads (a target's reset fields) never are.
        if (decodedFrom != null) {
            decodedFrom = null;
        }
    }

    /** The names of a set that holds only top-level fields, e.g. {@code status}; empty for any other set. */
    Optional<Set<String>> topLevelFieldNames() {
        if (!children.isEmpty()) {
            return Optional.empty();
        }
        Set<String> names = new HashSet<>();
        for (PathElement member : members) {
            if (!(member instanceof PathElement.Field field)) {
                return Optional.empty();
            }
            names.add(field.name());
        }
        return Optional.of(names);
    }

    /** Adds a member to this node (not a path from the root). */
    void addMember(PathElement element) {
        forgetDecodedForm();
        members.add(element);
    }

    /** Whether a path is a member of both sets: exactly when {@link #difference} would remove something. */
    public boolean overlaps(FieldSet other) {
        if (!members.isEmpty() && !other.members.isEmpty()) {
            NavigableSet<PathElement> smaller = members.size() <= other.members.size() ? members : other.members;
            NavigableSet<PathElement> larger = smaller == members ? other.members : members;
            for (PathElement member : smaller) {
                if (larger.contains(member)) {
                    return true;
                }
            }
        }
        if (children.isEmpty() || other.children.isEmpty()) {
            return false;
        }
        for (Map.Entry<PathElement, FieldSet> child : children.entrySet()) {
            FieldSet otherChild = other.children.get(child.getKey());
            if (otherChild != null && child.getValue().overlaps(otherChild)) {
                return true;
            }
        }
        return false;
    }

    /** Whether every member path of the other set is one of this set: exactly when {@link #union} adds nothing. */
    public boolean containsAll(FieldSet other) {
        if (!members.containsAll(other.members)) {
            return false;
        }
        for (Map.Entry<PathElement, FieldSet> child : other.children.entrySet()) {
            FieldSet own = children.get(child.getKey());
            if (own == null || !own.containsAll(child.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** Removes the other set's member paths from this one in place, as {@link #difference} leaves them out. */
    void removeAll(FieldSet other) {
        forgetDecodedForm();
        if (!members.isEmpty()) {
            members.removeAll(other.members);
        }
        for (Map.Entry<PathElement, FieldSet> child : other.children.entrySet()) {
            FieldSet own = children.get(child.getKey());
            if (own != null) {
                own.removeAll(child.getValue());
                if (own.isEmpty()) {
                    children.remove(child.getKey());
                }
            }
        }
    }

    public FieldSet copy() {
        return union(new FieldSet());
    }

    public FieldSet union(FieldSet other) {
        FieldSet result = new FieldSet();
        result.members.addAll(members);
        result.members.addAll(other.members);
        for (Map.Entry<PathElement, FieldSet> child : children.entrySet()) {
            FieldSet otherChild = other.children.get(child.getKey());
            result.putChild(child.getKey(), otherChild == null ? child.getValue().copyTree() : child.getValue().union(otherChild));
        }
        for (Map.Entry<PathElement, FieldSet> child : other.children.entrySet()) {
            if (!children.containsKey(child.getKey())) {
                result.putChild(child.getKey(), child.getValue().copyTree());
            }
        }
        return result;
    }

    public FieldSet intersection(FieldSet other) {
        FieldSet result = new FieldSet();
        for (PathElement member : members) {
            if (other.members.contains(member)) {
                result.members.add(member);
            }
        }
        for (Map.Entry<PathElement, FieldSet> child : children.entrySet()) {
            FieldSet otherChild = other.children.get(child.getKey());
            if (otherChild != null) {
                result.putChild(child.getKey(), child.getValue().intersection(otherChild));
            }
        }
        return result;
    }

    /** The paths of this set that are not in the other; members of the other do not remove paths below them. */
    public FieldSet difference(FieldSet other) {
        FieldSet result = new FieldSet();
        for (PathElement member : members) {
            if (!other.members.contains(member)) {
                result.members.add(member);
            }
        }
        for (Map.Entry<PathElement, FieldSet> child : children.entrySet()) {
            FieldSet otherChild = other.children.get(child.getKey());
            result.putChild(child.getKey(), otherChild == null ? child.getValue().copyTree() : child.getValue().difference(otherChild));
        }
        return result;
    }

    /** Like {@link #difference}, and a member of the other also removes every path below it. */
    public FieldSet recursiveDifference(FieldSet other) {
        FieldSet result = new FieldSet();
        for (PathElement member : members) {
            if (!other.members.contains(member)) {
                result.members.add(member);
            }
        }
        for (Map.Entry<PathElement, FieldSet> child : children.entrySet()) {
            if (other.members.contains(child.getKey())) {
                continue;
            }
            FieldSet otherChild = other.children.get(child.getKey());
            result.putChild(child.getKey(), otherChild == null ? child.getValue().copyTree() : child.getValue().recursiveDifference(otherChild));
        }
        return result;
    }

    private FieldSet copyTree() {
        FieldSet result = new FieldSet();
        result.members.addAll(members);
        children.forEach((element, child) -> result.putChild(element, child.copyTree()));
        return result;
    }

    private void putChild(PathElement element, FieldSet child) {
        if (!child.isEmpty()) {
            children.put(element, child);
        }
    }

    void putChildUnlessEmpty(PathElement element, FieldSet child) {
        forgetDecodedForm();
        putChild(element, child);
    }

    /** Every member path: the members of a node before the paths below its children, each in element order. */
    public List<List<PathElement>> paths() {
        List<List<PathElement>> paths = new ArrayList<>();
        collect(new ArrayList<>(), paths);
        return paths;
    }

    private void collect(List<PathElement> prefix, List<List<PathElement>> paths) {
        for (PathElement member : members) {
            List<PathElement> path = new ArrayList<>(prefix);
            path.add(member);
            paths.add(List.copyOf(path));
        }
        for (Map.Entry<PathElement, FieldSet> child : children.entrySet()) {
            prefix.add(child.getKey());
            child.getValue().collect(prefix, paths);
            prefix.remove(prefix.size() - 1);
        }
    }

    /** Upstream's {@code fieldsV1} object. */
    public ObjectNode toFieldsV1() {
        if (decodedFrom != null) {
            return decodedFrom.deepCopy();
        }
        ObjectNode object = Json.object();
        writeContents(object, false);
        return object;
    }

    private void writeContents(ObjectNode object, boolean includeSelf) {
        if (includeSelf && !(members.isEmpty() && children.isEmpty())) {
            object.putObject(".");
        }
        // Members and children are both sorted: merged in one pass, an element in both written once.
        Iterator<PathElement> memberIterator = members.iterator();
        Iterator<Map.Entry<PathElement, FieldSet>> childIterator = children.entrySet().iterator();
        PathElement member = memberIterator.hasNext() ? memberIterator.next() : null;
        Map.Entry<PathElement, FieldSet> child = childIterator.hasNext() ? childIterator.next() : null;
        while (member != null || child != null) {
            int order = member == null ? 1 : child == null ? -1 : member.compareTo(child.getKey());
            if (order < 0) {
                object.putObject(member.encode());
                member = memberIterator.hasNext() ? memberIterator.next() : null;
            } else {
                child.getValue().writeContents(object.putObject(child.getKey().encode()), order == 0);
                if (order == 0) {
                    member = memberIterator.hasNext() ? memberIterator.next() : null;
                }
                child = childIterator.hasNext() ? childIterator.next() : null;
            }
        }
    }

    /**
     * Parses a {@code fieldsV1} object.
     *
     * @throws IllegalArgumentException when it is not one
     */
    public static FieldSet fromFieldsV1(JsonNode fieldsV1) {
        if (fieldsV1 == null || fieldsV1.isNull() || fieldsV1.isMissingNode()) {
            return new FieldSet();
        }
        if (!fieldsV1.isObject()) {
            throw new IllegalArgumentException("fieldsV1 must be an object");
        }
        FieldSet set = new FieldSet();
        Reading reading = new Reading();
        set.readContents(fieldsV1, reading, false);
        if (reading.canonical) {
            set.decodedFrom = (ObjectNode) fieldsV1;
        }
        return set;
    }

    /** Whether what has been read so far is exactly what {@link #toFieldsV1} writes for it. */
    private static final class Reading {
        boolean canonical = true;
    }

    /** Reads a node's contents; returns whether it held the {@code "."} self marker. */
    private boolean readContents(JsonNode object, Reading reading, boolean nested) {
        boolean self = false;
        PathElement previous = null;
        boolean first = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            if (entry.getKey().equals(".")) {
                self = true;
                // Written only first, as an empty object, in a node that has more.
                if (!first || !nested || !entry.getValue().isObject() || !entry.getValue().isEmpty() || object.size() < 2) {
                    reading.canonical = false;
                }
                first = false;
                continue;
            }
            first = false;
            PathElement element = PathElement.decode(entry.getKey());
            JsonNode value = entry.getValue();
            if (!value.isObject()) {
                throw new IllegalArgumentException("the value of " + entry.getKey() + " must be an object");
            }
            if (reading.canonical) {
                // Written in element order, each element once and in its own encoding.
                if (previous != null && previous.compareTo(element) >= 0 || !(element instanceof PathElement.Field) && !element.encode().equals(entry.getKey())) {
                    reading.canonical = false;
                }
                previous = element;
            }
            if (value.isEmpty()) {
                members.add(element);
                continue;
            }
            FieldSet child = new FieldSet();
            if (child.readContents(value, reading, true)) {
                members.add(element);
            }
            putChild(element, child);
        }
        return self;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FieldSet set && paths().equals(set.paths());
    }

    @Override
    public int hashCode() {
        return paths().hashCode();
    }

    /** The member paths as upstream prints them, one per line. */
    @Override
    public String toString() {
        List<String> lines = new ArrayList<>();
        for (List<PathElement> path : paths()) {
            lines.add(display(path));
        }
        return String.join("\n", lines);
    }

    /** A path as upstream prints it, e.g. {@code .spec.containers[name="nginx"].image}. */
    public static String display(List<PathElement> path) {
        StringBuilder text = new StringBuilder();
        for (PathElement element : path) {
            text.append(element.display());
        }
        return text.toString();
    }
}
