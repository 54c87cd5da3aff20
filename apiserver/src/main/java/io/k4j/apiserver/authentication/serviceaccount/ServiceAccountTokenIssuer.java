package io.k4j.apiserver.authentication.serviceaccount;

import static java.util.Objects.requireNonNull;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.lang.JoseException;

/**
 * Signs service-account tokens with the cluster's {@code sa.key}: bound tokens (TokenRequest) in upstream's claim
 * layout ({@code iss}, {@code sub}, {@code aud}, {@code exp}, {@code iat}, {@code nbf}, {@code jti} and the private
 * {@code kubernetes.io} claim) and legacy secret-based tokens. ES256 for EC keys, RS256 for RSA keys; the
 * {@code kid} header is upstream's key id (the unpadded base64url SHA-256 of the DER public key). Thread-safe.
 */
public final class ServiceAccountTokenIssuer {
    /** The issuer of legacy tokens stored in {@code kubernetes.io/service-account-token} secrets. */
    public static final String LEGACY_ISSUER = "kubernetes/serviceaccount";
    public static final String DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local";

    static final String LEGACY_NAMESPACE_CLAIM = "kubernetes.io/serviceaccount/namespace";
    static final String LEGACY_SECRET_NAME_CLAIM = "kubernetes.io/serviceaccount/secret.name";
    static final String LEGACY_SERVICE_ACCOUNT_NAME_CLAIM = "kubernetes.io/serviceaccount/service-account.name";
    static final String LEGACY_SERVICE_ACCOUNT_UID_CLAIM = "kubernetes.io/serviceaccount/service-account.uid";
    static final String KUBERNETES_CLAIM = "kubernetes.io";

    private final PrivateKey signingKey;
    private final String keyId;
    private final String algorithm;
    private final String issuer;
    private final InstantSource clock;

    public ServiceAccountTokenIssuer(PrivateKey signingKey, PublicKey publicKey, String issuer, InstantSource clock) {
        this.signingKey = requireNonNull(signingKey, "signingKey is null");
        this.keyId = keyId(requireNonNull(publicKey, "publicKey is null"));
        this.algorithm = signatureAlgorithm(publicKey);
        this.issuer = requireNonNull(issuer, "issuer is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public String issuer() {
        return issuer;
    }

    public SignedToken issue(TokenClaims claims) {
        Instant now = clock.instant();
        Instant expiration = now.plus(claims.validity());
        JwtClaims jwt = new JwtClaims();
        jwt.setIssuer(issuer);
        jwt.setSubject(ServiceAccounts.username(claims.namespace(), claims.serviceAccount().name()));
        // always an array, as upstream emits it (jose4j would collapse a single audience to a string)
        jwt.setStringListClaim("aud", claims.audiences());
        jwt.setExpirationTime(NumericDate.fromSeconds(expiration.getEpochSecond()));
        jwt.setIssuedAt(NumericDate.fromSeconds(now.getEpochSecond()));
        jwt.setNotBefore(NumericDate.fromSeconds(now.getEpochSecond()));
        jwt.setJwtId(UUID.randomUUID().toString());
        Map<String, Object> kubernetes = new LinkedHashMap<>();
        kubernetes.put("namespace", claims.namespace());
        claims.node().ifPresent(node -> kubernetes.put("node", reference(node)));
        claims.pod().ifPresent(pod -> kubernetes.put("pod", reference(pod)));
        claims.secret().ifPresent(secret -> kubernetes.put("secret", reference(secret)));
        kubernetes.put("serviceaccount", reference(claims.serviceAccount()));
        claims.warnAfter().ifPresent(warnAfter -> kubernetes.put("warnafter", now.plus(warnAfter).getEpochSecond()));
        jwt.setClaim(KUBERNETES_CLAIM, kubernetes);
        return new SignedToken(sign(jwt), expiration);
    }

    /** A token of the legacy kind the token controller stores in a service-account-token secret. No expiry. */
    public String issueLegacy(String namespace, ObjectReference serviceAccount, String secretName) {
        JwtClaims jwt = new JwtClaims();
        jwt.setIssuer(LEGACY_ISSUER);
        jwt.setClaim(LEGACY_NAMESPACE_CLAIM, namespace);
        jwt.setClaim(LEGACY_SECRET_NAME_CLAIM, secretName);
        jwt.setClaim(LEGACY_SERVICE_ACCOUNT_NAME_CLAIM, serviceAccount.name());
        jwt.setClaim(LEGACY_SERVICE_ACCOUNT_UID_CLAIM, serviceAccount.uid());
        jwt.setSubject(ServiceAccounts.username(namespace, serviceAccount.name()));
        return sign(jwt);
    }

    private String sign(JwtClaims jwt) {
        JsonWebSignature signature = new JsonWebSignature();
        signature.setPayload(jwt.toJson());
        signature.setKey(signingKey);
        signature.setKeyIdHeaderValue(keyId);
        signature.setAlgorithmHeaderValue(algorithm);
        try {
            return signature.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException("cannot sign service account token", e);
        }
    }

    private static Map<String, Object> reference(ObjectReference reference) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", reference.name());
        map.put("uid", reference.uid());
        return map;
    }

    /** Upstream's key id: unpadded base64url of the SHA-256 of the DER-encoded public key. */
    public static String keyId(PublicKey publicKey) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(publicKey.getEncoded());
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JWS algorithm for a key: ES256 for P-256 keys, RS256 for RSA keys. */
    public static String signatureAlgorithm(PublicKey publicKey) {
        return switch (publicKey.getAlgorithm()) {
            case "EC" -> AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256;
            case "RSA" -> AlgorithmIdentifiers.RSA_USING_SHA256;
            default -> throw new IllegalArgumentException("unsupported service account key algorithm: " + publicKey.getAlgorithm());
        };
    }

    static List<String> supportedAlgorithms() {
        return List.of(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256, AlgorithmIdentifiers.RSA_USING_SHA256,
                AlgorithmIdentifiers.RSA_USING_SHA384, AlgorithmIdentifiers.RSA_USING_SHA512,
                AlgorithmIdentifiers.ECDSA_USING_P384_CURVE_AND_SHA384, AlgorithmIdentifiers.ECDSA_USING_P521_CURVE_AND_SHA512);
    }
}
