package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import java.io.IOException;
import java.util.Base64;

/**
 * The {@code continue} token of a paged list, in upstream's form: base64url (unpadded) of
 * {@code {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the resource prefix>"}}.
 *
 * @param revision the revision every page is read at
 * @param startKey the first key of the next page, relative to the resource prefix
 */
public record ContinueToken(long revision, String startKey) {
    private static final String VERSION = "meta.k8s.io/v1";

    public String encode() {
        ObjectNode node = Json.object();
        node.put("v", VERSION);
        node.put("rv", revision);
        node.put("start", startKey);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.write(node));
    }

    public static ContinueToken decode(String token) {
        JsonNode node;
        try {
            node = Json.mapper().readTree(Base64.getUrlDecoder().decode(token));
        } catch (IllegalArgumentException | IOException e) {
            throw invalid();
        }
        if (node == null || !VERSION.equals(node.path("v").asText()) || !node.path("rv").canConvertToLong() || !node.path("start").isTextual()) {
            throw invalid();
        }
        long revision = node.path("rv").asLong();
        String start = node.path("start").asText();
        if (revision <= 0 || start.contains("..") || start.startsWith("/")) {
            throw invalid();
        }
        return new ContinueToken(revision, start);
    }

    private static StatusException invalid() {
        return StatusException.badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    }
}
