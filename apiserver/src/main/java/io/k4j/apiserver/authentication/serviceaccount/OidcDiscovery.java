package io.k4j.apiserver.authentication.serviceaccount;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.PublicKey;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.PublicJsonWebKey;
import org.jose4j.lang.JoseException;

/**
 * The service-account issuer discovery documents upstream serves so that external systems can verify tokens:
 * {@code GET /.well-known/openid-configuration} and {@code GET /openid/v1/jwks}, both {@code application/json}. The
 * bytes are computed once; the HTTP layer serves them as they are (upstream also sends
 * {@code Cache-Control: public, max-age=3600}). Immutable and thread-safe.
 */
public final class OidcDiscovery {
    public static final String CONFIGURATION_PATH = "/.well-known/openid-configuration";
    public static final String JWKS_PATH = "/openid/v1/jwks";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final byte[] configuration;
    private final byte[] jwks;

    /**
     * @param issuer the service-account issuer URL
     * @param jwksUri where clients fetch the keys; {@code null} or empty for {@code <issuer>/openid/v1/jwks}
     * @param keys the public keys that verify tokens
     */
    public OidcDiscovery(String issuer, String jwksUri, List<PublicKey> keys) {
        requireNonNull(issuer, "issuer is null");
        requireNonNull(keys, "keys is null");
        String keysUri = jwksUri == null || jwksUri.isEmpty() ? stripTrailingSlash(issuer) + JWKS_PATH : jwksUri;
        ObjectNode document = JSON.createObjectNode();
        document.put("issuer", issuer);
        document.put("jwks_uri", keysUri);
        document.putArray("response_types_supported").add("id_token");
        document.putArray("subject_types_supported").add("public");
        ArrayNode algorithms = document.putArray("id_token_signing_alg_values_supported");
        new TreeSet<>(keys.stream().map(ServiceAccountTokenIssuer::signatureAlgorithm).toList()).forEach(algorithms::add);
        ObjectNode keySet = JSON.createObjectNode();
        ArrayNode keyArray = keySet.putArray("keys");
        for (PublicKey key : keys) {
            try {
                PublicJsonWebKey jwk = PublicJsonWebKey.Factory.newPublicJwk(key);
                jwk.setKeyId(ServiceAccountTokenIssuer.keyId(key));
                jwk.setUse("sig");
                jwk.setAlgorithm(ServiceAccountTokenIssuer.signatureAlgorithm(key));
                Map<String, Object> parameters = jwk.toParams(JsonWebKey.OutputControlLevel.PUBLIC_ONLY);
                keyArray.add(JSON.valueToTree(parameters));
            } catch (JoseException e) {
                throw new IllegalArgumentException("cannot publish service account key", e);
            }
        }
        try {
            this.configuration = JSON.writeValueAsBytes(document);
            this.jwks = JSON.writeValueAsBytes(keySet);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The body of {@value #CONFIGURATION_PATH}. */
    public byte[] openidConfiguration() {
        return configuration.clone();
    }

    /** The body of {@value #JWKS_PATH}. */
    public byte[] jwks() {
        return jwks.clone();
    }

    private static String stripTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
