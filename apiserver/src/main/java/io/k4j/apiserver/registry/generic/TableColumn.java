package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

/**
 * One column of a server-side printed table, as upstream's {@code metav1.TableColumnDefinition}.
 *
 * @param name the header, e.g. {@code Ready}
 * @param type {@code string}, {@code integer}, {@code number}, {@code boolean} or {@code date}
 * @param format e.g. {@code name} for the NAME column, otherwise usually empty
 * @param description a short description
 * @param priority 0 for columns shown by default, 1 for those shown only with {@code -o wide}
 */
public record TableColumn(String name, String type, String format, String description, int priority) {
    public TableColumn {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        requireNonNull(format, "format is null");
        requireNonNull(description, "description is null");
    }

    public static TableColumn nameColumn() {
        return new TableColumn("Name", "string", "name", "Name must be unique within a namespace.", 0);
    }

    public static TableColumn ageColumn() {
        return new TableColumn("Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0);
    }

    public static TableColumn string(String name, String description) {
        return new TableColumn(name, "string", "", description, 0);
    }

    public static TableColumn integer(String name, String description) {
        return new TableColumn(name, "integer", "", description, 0);
    }

    public static TableColumn wide(String name, String description) {
        return new TableColumn(name, "string", "", description, 1);
    }
}
