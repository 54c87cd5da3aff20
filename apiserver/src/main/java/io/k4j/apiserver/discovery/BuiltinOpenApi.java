package io.k4j.apiserver.discovery;

import io.k4j.api.schema.OpenApiV2;
import io.k4j.api.schema.OpenApiV3;
import java.util.Optional;

/** The OpenAPI documents of the built-in resources, from the api module's schemas. Thread-safe. */
public final class BuiltinOpenApi implements OpenApiSource {
    @Override
    public byte[] v2() {
        return OpenApiV2.document();
    }

    @Override
    public byte[] v3Index() {
        return OpenApiV3.index();
    }

    @Override
    public Optional<byte[]> v3(String groupVersionPath) {
        return OpenApiV3.groupVersion(groupVersionPath);
    }
}
