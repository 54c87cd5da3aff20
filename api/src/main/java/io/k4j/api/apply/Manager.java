package io.k4j.api.apply;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;

/**
 * Who owns a set of fields, as upstream identifies a {@code managedFields} entry: the manager's name, the operation,
 * the subresource written through, and for updates the API version written (appliers own their fields whatever
 * version they apply). Immutable.
 *
 * @param name e.g. {@code kubectl-client-side-apply}
 * @param apiVersion empty for {@link Operation#APPLY}
 * @param subresource empty for the main resource, e.g. {@code status}
 */
public record Manager(String name, Operation operation, String apiVersion, String subresource) implements Comparable<Manager> {
    public Manager {
        requireNonNull(name, "name is null");
        requireNonNull(operation, "operation is null");
        requireNonNull(apiVersion, "apiVersion is null");
        requireNonNull(subresource, "subresource is null");
        if (operation == Operation.APPLY) {
            apiVersion = "";
        }
    }

    /** The operations upstream records. */
    public enum Operation {
        APPLY("Apply"),
        UPDATE("Update");

        private final String wireName;

        Operation(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        static Operation fromWireName(String value) {
            for (Operation operation : values()) {
                if (operation.wireName.equals(value)) {
                    return operation;
                }
            }
            throw new IllegalArgumentException("unknown operation " + value);
        }
    }

    /**
     * The manager as upstream prints it in conflicts: {@code "kubectl"}, {@code "x" with subresource "status"},
     * {@code "kubectl-client-side-apply" using apps/v1}.
     */
    public String display() {
        String text = Json.writeString(Json.nodeFactory().textNode(name));
        if (!subresource.isEmpty()) {
            text += " with subresource " + Json.writeString(Json.nodeFactory().textNode(subresource));
        }
        if (operation == Operation.UPDATE) {
            text += " using " + apiVersion;
        }
        return text;
    }

    /** Upstream's manager identifier: the entry without its time and fields, as JSON; managers sort by it. */
    public String identifier() {
        ObjectNode identifier = Json.object();
        identifier.put("manager", name);
        identifier.put("operation", operation.wireName());
        if (!apiVersion.isEmpty()) {
            identifier.put("apiVersion", apiVersion);
        }
        if (!subresource.isEmpty()) {
            identifier.put("subresource", subresource);
        }
        return Json.writeString(identifier);
    }

    @Override
    public int compareTo(Manager other) {
        return identifier().compareTo(other.identifier());
    }
}
