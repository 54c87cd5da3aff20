package io.k4j.apiserver.discovery;

import java.util.Optional;

/**
 * The OpenAPI documents the server publishes (produced from the schemas by api-schema's OpenApiV2/OpenApiV3).
 * Thread-safe.
 */
public interface OpenApiSource {
    /** {@code /openapi/v2}: the Swagger 2.0 document as JSON. */
    byte[] v2();

    /** {@code /openapi/v3}: the index, {@code {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"}}}}. */
    byte[] v3Index();

    /** {@code /openapi/v3/<path>}, e.g. {@code api/v1} or {@code apis/apps/v1}; empty when not served. */
    Optional<byte[]> v3(String groupVersionPath);
}
