package io.k4j.api.schema;

/**
 * What a named definition is. Most are objects with fields; a few apimachinery types are scalars on the wire
 * and upstream publishes them as named definitions of their own. Immutable.
 */
public enum DefinitionKind {
    /** An object with named fields. */
    OBJECT,
    /** {@code resource.Quantity}: a string such as {@code 500m} or a number. */
    QUANTITY,
    /** {@code intstr.IntOrString}: an integer or a string ({@code x-kubernetes-int-or-string}). */
    INT_OR_STRING,
    /** {@code metav1.Time}: an RFC 3339 date-time string, second precision. */
    TIME,
    /** {@code metav1.MicroTime}: an RFC 3339 date-time string, microsecond precision. */
    MICRO_TIME,
    /** {@code runtime.RawExtension}: an embedded object of any kind, kept as given. */
    RAW_EXTENSION,
    /** {@code metav1.FieldsV1}: the managed-fields set, an object of any shape. */
    FIELDS_V1
}
