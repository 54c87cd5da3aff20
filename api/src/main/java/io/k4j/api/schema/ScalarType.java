package io.k4j.api.schema;

/** The JSON scalar types the built-in API uses, with the OpenAPI {@code type} and {@code format} of each. Immutable. */
public enum ScalarType {
    STRING("string", ""),
    /** Base64-encoded bytes, e.g. {@code Secret.data} values. */
    BYTES("string", "byte"),
    INT32("integer", "int32"),
    INT64("integer", "int64"),
    DOUBLE("number", "double"),
    BOOLEAN("boolean", "");

    private final String openApiType;
    private final String openApiFormat;

    ScalarType(String openApiType, String openApiFormat) {
        this.openApiType = openApiType;
        this.openApiFormat = openApiFormat;
    }

    public String openApiType() {
        return openApiType;
    }

    /** The OpenAPI format, empty when upstream gives none. */
    public String openApiFormat() {
        return openApiFormat;
    }
}
