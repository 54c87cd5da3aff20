package io.k4j.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
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
        FieldSet node = this;
        for (PathElement element : prefix) {
            node = node.children.computeIfAbsent(element, key -> new FieldSet());
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
        return members;
    }

    NavigableMap<PathElement, FieldSet> children() {
        return children;
    }

    /** The children below one element, or null. */
    FieldSet child(PathElement element) {
        return children.get(element);
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
        set.readContents(fieldsV1);
        return set;
    }

    /** Reads a node's contents; returns whether it held the {@code "."} self marker. */
    private boolean readContents(JsonNode object) {
        boolean self = false;
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            if (entry.getKey().equals(".")) {
                self = true;
                continue;
            }
            PathElement element = PathElement.decode(entry.getKey());
            JsonNode value = entry.getValue();
            if (!value.isObject()) {
                throw new IllegalArgumentException("the value of " + entry.getKey() + " must be an object");
            }
            if (value.isEmpty()) {
                members.add(element);
                continue;
            }
            FieldSet child = new FieldSet();
            if (child.readContents(value)) {
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
