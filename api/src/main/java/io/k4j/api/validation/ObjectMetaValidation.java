package io.k4j.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Validation of the {@code metadata} every object shares, as upstream's {@code ValidateObjectMetaAccessor}
 * and {@code ValidateObjectMetaAccessorUpdate}: field paths ({@code metadata.name}, {@code metadata.labels}
 * …) and messages are upstream's. Objects are JSON trees; a missing {@code metadata} counts as empty.
 *
 * <p>Stateless and thread-safe.
 */
public final class ObjectMetaValidation {
    /** The limit on the summed length of all annotation keys and values. */
    public static final int TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
    /** The detail of every error about a changed immutable field. */
    public static final String FIELD_IMMUTABLE = "field is immutable";
    /** The detail of every error about a negative number that must not be. */
    public static final String IS_NEGATIVE = "must be greater than or equal to 0";

    /** The longest field manager name. */
    public static final int FIELD_MANAGER_MAX_LENGTH = 128;
    private static final int MAX_SUBRESOURCE_NAME_LENGTH = 256;
    private static final String FINALIZER_ORPHAN_DEPENDENTS = "orphan";
    private static final String FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion";

    private ObjectMetaValidation() {}

    /**
     * Validates the metadata of an object being created. Name generation must already have happened: a
     * {@code generateName} is checked as a prefix and the (generated) name as a name.
     *
     * @param namespaced whether the resource lives in namespaces (namespace required) or not (forbidden)
     * @param nameValidator the resource's name rule, usually {@link NameValidator#DNS_SUBDOMAIN}
     */
    public static FieldErrors validateCreate(ObjectNode object, boolean namespaced, NameValidator nameValidator) {
        FieldErrors errors = new FieldErrors();
        JsonNode metadata = metadata(object);
        String generateName = text(metadata, "generateName");
        if (!generateName.isEmpty()) {
            for (String message : nameValidator.validate(generateName, true)) {
                errors.add(FieldError.invalid("metadata.generateName", generateName, message));
            }
        }
        String name = text(metadata, "name");
        if (name.isEmpty()) {
            errors.add(FieldError.required("metadata.name", "name or generateName is required"));
        } else {
            for (String message : nameValidator.validate(name, false)) {
                errors.add(FieldError.invalid("metadata.name", name, message));
            }
        }
        String namespace = text(metadata, "namespace");
        if (namespaced) {
            if (namespace.isEmpty()) {
                errors.add(FieldError.required("metadata.namespace", ""));
            } else {
                for (String message : NameValidator.DNS_LABEL.validate(namespace, false)) {
                    errors.add(FieldError.invalid("metadata.namespace", namespace, message));
                }
            }
        } else if (!namespace.isEmpty()) {
            errors.add(FieldError.forbidden("metadata.namespace", "not allowed on this type"));
        }
        JsonNode generation = metadata.path("generation");
        if (generation.isNumber() && generation.asLong() < 0) {
            errors.add(FieldError.invalid("metadata.generation", generation.asLong(), IS_NEGATIVE));
        }
        errors.addAll(validateLabels(metadata.path("labels"), "metadata.labels"));
        errors.addAll(validateAnnotations(metadata.path("annotations"), "metadata.annotations"));
        errors.addAll(validateOwnerReferences(metadata.path("ownerReferences"), "metadata.ownerReferences"));
        errors.addAll(validateFinalizers(metadata.path("finalizers"), "metadata.finalizers"));
        errors.addAll(validateManagedFields(metadata.path("managedFields"), "metadata.managedFields"));
        return errors;
    }

    /**
     * Validates the metadata of an update against the stored object. The caller must already have filled an
     * omitted {@code resourceVersion} for unconditional updates (upstream's store does so before validating).
     */
    public static FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = new FieldErrors();
        JsonNode newMetadata = metadata(newObject);
        JsonNode oldMetadata = metadata(oldObject);
        if (isPresent(oldMetadata.path("deletionTimestamp"))) {
            Set<String> added = new TreeSet<>(strings(newMetadata.path("finalizers")));
            added.removeAll(strings(oldMetadata.path("finalizers")));
            if (!added.isEmpty()) {
                errors.add(FieldError.forbidden("metadata.finalizers",
                        "no new finalizers can be added if the object is being deleted, found new finalizers " + FieldError.formatValue(List.copyOf(added))));
            }
        }
        String resourceVersion = text(newMetadata, "resourceVersion");
        if (resourceVersion.isEmpty()) {
            errors.add(FieldError.invalid("metadata.resourceVersion", resourceVersion, "must be specified for an update"));
        }
        long newGeneration = newMetadata.path("generation").asLong(0);
        if (newGeneration < oldMetadata.path("generation").asLong(0)) {
            errors.add(FieldError.invalid("metadata.generation", newGeneration, "must not be decremented"));
        }
        for (String field : List.of("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds")) {
            errors.addAll(validateImmutableField(newMetadata.path(field), oldMetadata.path(field), "metadata." + field));
        }
        errors.addAll(validateLabels(newMetadata.path("labels"), "metadata.labels"));
        errors.addAll(validateAnnotations(newMetadata.path("annotations"), "metadata.annotations"));
        errors.addAll(validateOwnerReferences(newMetadata.path("ownerReferences"), "metadata.ownerReferences"));
        errors.addAll(validateManagedFields(newMetadata.path("managedFields"), "metadata.managedFields"));
        return errors;
    }

    /**
     * Fails when a field changed. Absent, {@code null} and empty-string values are the same (as upstream's
     * typed fields, where they are all the zero value).
     */
    public static FieldErrors validateImmutableField(JsonNode newValue, JsonNode oldValue, String field) {
        FieldErrors errors = new FieldErrors();
        if (!Objects.equals(normalize(newValue), normalize(oldValue))) {
            errors.add(FieldError.invalid(field, displayValue(newValue, field), FIELD_IMMUTABLE));
        }
        return errors;
    }

    /** Label keys must be qualified names and values valid label values (upstream's {@code ValidateLabels}). */
    public static FieldErrors validateLabels(JsonNode labels, String field) {
        FieldErrors errors = new FieldErrors();
        for (Map.Entry<String, JsonNode> label : labels.properties()) {
            for (String message : NameValidation.isQualifiedName(label.getKey())) {
                errors.add(FieldError.invalid(field, label.getKey(), message));
            }
            String value = label.getValue().asText("");
            for (String message : NameValidation.isValidLabelValue(value)) {
                errors.add(FieldError.invalid(field, value, message));
            }
        }
        return errors;
    }

    /** Annotation keys must be qualified names (case-insensitive) and all annotations together at most 256 KiB. */
    public static FieldErrors validateAnnotations(JsonNode annotations, String field) {
        FieldErrors errors = new FieldErrors();
        long totalSize = 0;
        for (Map.Entry<String, JsonNode> annotation : annotations.properties()) {
            for (String message : NameValidation.isQualifiedName(annotation.getKey().toLowerCase(Locale.ROOT))) {
                errors.add(FieldError.invalid(field, annotation.getKey(), message));
            }
            totalSize += utf8Length(annotation.getKey()) + utf8Length(annotation.getValue().asText(""));
        }
        if (totalSize > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
            errors.add(FieldError.tooLong(field, "", TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
        }
        return errors;
    }

    /**
     * Every owner reference needs an apiVersion with a version, a kind, a name and a uid; Events may not own;
     * at most one reference may be the controller. Upstream reports the per-reference errors without an index.
     */
    public static FieldErrors validateOwnerReferences(JsonNode ownerReferences, String field) {
        FieldErrors errors = new FieldErrors();
        String firstControllerName = "";
        for (JsonNode reference : ownerReferences) {
            String apiVersion = text(reference, "apiVersion");
            String kind = text(reference, "kind");
            String version = versionOf(apiVersion);
            if (version.isEmpty()) {
                errors.add(FieldError.invalid(field + ".apiVersion", apiVersion, "version must not be empty"));
            }
            if (kind.isEmpty()) {
                errors.add(FieldError.invalid(field + ".kind", kind, "must not be empty"));
            }
            String name = text(reference, "name");
            if (name.isEmpty()) {
                errors.add(FieldError.invalid(field + ".name", name, "must not be empty"));
            }
            String uid = text(reference, "uid");
            if (uid.isEmpty()) {
                errors.add(FieldError.invalid(field + ".uid", uid, "must not be empty"));
            }
            if (apiVersion.equals("v1") && kind.equals("Event")) {
                errors.add(FieldError.invalid(field, reference, "/v1, Kind=Event is disallowed from being an owner"));
            }
            if (reference.path("controller").asBoolean(false)) {
                String controllerName = kind + "/" + name;
                if (firstControllerName.isEmpty()) {
                    firstControllerName = controllerName;
                } else {
                    errors.add(FieldError.invalid(field, ownerReferences,
                            "Only one reference can have Controller set to true. Found \"true\" in references for " + firstControllerName + " and " + controllerName));
                }
            }
        }
        return errors;
    }

    /** Finalizers must be qualified names, and {@code orphan} and {@code foregroundDeletion} exclude each other. */
    public static FieldErrors validateFinalizers(JsonNode finalizers, String field) {
        FieldErrors errors = new FieldErrors();
        List<String> names = strings(finalizers);
        for (String finalizer : names) {
            for (String message : NameValidation.isQualifiedName(finalizer)) {
                errors.add(FieldError.invalid(field, finalizer, message));
            }
        }
        if (names.contains(FINALIZER_ORPHAN_DEPENDENTS) && names.contains(FINALIZER_DELETE_DEPENDENTS)) {
            errors.add(FieldError.invalid(field, names,
                    "finalizer " + FINALIZER_ORPHAN_DEPENDENTS + " and " + FINALIZER_DELETE_DEPENDENTS + " cannot be both set"));
        }
        return errors;
    }

    /** Each managed fields entry needs operation {@code Apply} or {@code Update}, fieldsType {@code FieldsV1} and a valid manager. */
    public static FieldErrors validateManagedFields(JsonNode managedFields, String field) {
        FieldErrors errors = new FieldErrors();
        int index = 0;
        for (JsonNode entry : managedFields) {
            String path = field + "[" + index++ + "]";
            String operation = text(entry, "operation");
            if (!operation.equals("Apply") && !operation.equals("Update")) {
                errors.add(FieldError.invalid(path + ".operation", operation, "must be `Apply` or `Update`"));
            }
            String fieldsType = text(entry, "fieldsType");
            if (!fieldsType.isEmpty() && !fieldsType.equals("FieldsV1")) {
                errors.add(FieldError.invalid(path + ".fieldsType", fieldsType, "must be `FieldsV1`"));
            }
            errors.addAll(validateFieldManager(text(entry, "manager"), path + ".manager"));
            String subresource = text(entry, "subresource");
            if (subresource.length() > MAX_SUBRESOURCE_NAME_LENGTH) {
                errors.add(FieldError.tooLong(path + ".subresource", subresource, MAX_SUBRESOURCE_NAME_LENGTH));
            }
        }
        return errors;
    }

    /** A field manager name (the {@code fieldManager} parameter or a managed fields entry): at most 128 printable characters. */
    public static FieldErrors validateFieldManager(String fieldManager, String field) {
        FieldErrors errors = new FieldErrors();
        if (fieldManager.length() > FIELD_MANAGER_MAX_LENGTH) {
            errors.add(FieldError.tooLong(field, fieldManager, FIELD_MANAGER_MAX_LENGTH));
        }
        int position = 0;
        for (int offset = 0; offset < fieldManager.length(); ) {
            int character = fieldManager.codePointAt(offset);
            if (!isPrintable(character)) {
                errors.add(FieldError.invalid(field, fieldManager,
                        String.format("invalid character U+%04X (at position %d)", character, position)));
            }
            // Upstream counts byte offsets of the UTF-8 encoding.
            position += new String(Character.toChars(character)).getBytes(StandardCharsets.UTF_8).length;
            offset += Character.charCount(character);
        }
        return errors;
    }

    private static boolean isPrintable(int character) {
        if (character == ' ') {
            return true;
        }
        int type = Character.getType(character);
        return !Character.isISOControl(character) && !Character.isWhitespace(character)
                && type != Character.UNASSIGNED && type != Character.SURROGATE && type != Character.PRIVATE_USE
                && type != Character.FORMAT && type != Character.LINE_SEPARATOR && type != Character.PARAGRAPH_SEPARATOR
                && type != Character.SPACE_SEPARATOR;
    }

    private static JsonNode metadata(ObjectNode object) {
        JsonNode metadata = object.path("metadata");
        return metadata.isObject() ? metadata : MissingNode.getInstance();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isValueNode() && !value.isNull() ? value.asText() : "";
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>(array.size());
        for (Iterator<JsonNode> iterator = array.elements(); iterator.hasNext(); ) {
            values.add(iterator.next().asText(""));
        }
        return values;
    }

    /** The version part of an apiVersion as upstream's {@code ParseGroupVersion}; empty when malformed. */
    private static String versionOf(String apiVersion) {
        int slash = apiVersion.indexOf('/');
        if (slash < 0) {
            return apiVersion;
        }
        if (apiVersion.indexOf('/', slash + 1) >= 0) {
            return "";
        }
        return apiVersion.substring(slash + 1);
    }

    private static boolean isPresent(JsonNode value) {
        return !value.isMissingNode() && !value.isNull() && !(value.isTextual() && value.textValue().isEmpty());
    }

    private static JsonNode normalize(JsonNode value) {
        return isPresent(value) ? value : null;
    }

    private static Object displayValue(JsonNode value, String field) {
        if (!isPresent(value)) {
            // Upstream shows the zero value of the Go field: "" for strings, null for pointers.
            boolean pointer = field.endsWith("deletionTimestamp") || field.endsWith("deletionGracePeriodSeconds");
            return value.isTextual() || !pointer ? "" : null;
        }
        if (value.isTextual()) {
            return value.textValue();
        }
        return value.isIntegralNumber() ? (Object) value.asLong() : value;
    }

    private static long utf8Length(String value) {
        // Cheap for ASCII, which almost all annotations are; exact otherwise.
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) >= 0x80) {
                return value.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        return value.length();
    }
}
