package io.k4j.apiserver.authentication.serviceaccount;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.token.InvalidTokenException;
import io.k4j.apiserver.authentication.token.TokenAuthentication;
import io.k4j.apiserver.authentication.token.TokenAuthenticator;
import io.k4j.apiserver.registry.generic.Registry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jose4j.jwa.AlgorithmConstraints;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.NumericDate;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.jwt.consumer.JwtContext;

/**
 * Authenticates service-account JWTs as upstream's service-account token authenticator: the signature must verify
 * with one of the service-account public keys ({@code sa.pub}), the issuer must be one of ours, the audiences must
 * intersect the accepted ones, the token must be within its validity period (60 s leeway), and every object the token
 * names must still exist with the same uid: the service account always, the pod or secret of a bound token, the
 * secret of a legacy token (whose data must still hold this very token). Objects are read through the {@link
 * Registry}, i.e. from the watch cache.
 *
 * <p>Tokens that are not JWTs or come from another issuer are not this authenticator's kind (empty result).
 * Thread-safe.
 */
public final class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
    static final GroupVersionResource SERVICE_ACCOUNTS = new GroupVersionResource("", "v1", "serviceaccounts");
    static final GroupVersionResource PODS = new GroupVersionResource("", "v1", "pods");
    static final GroupVersionResource SECRETS = new GroupVersionResource("", "v1", "secrets");
    static final GroupVersionResource NODES = new GroupVersionResource("", "v1", "nodes");

    private static final int LEEWAY_SECONDS = 60;
    /** A pod or secret being deleted keeps its tokens valid this long, as upstream, so graceful shutdown works. */
    private static final Duration DELETION_GRACE = Duration.ofSeconds(60);

    private final List<PublicKey> keys;
    private final List<String> issuers;
    private final List<String> implicitAudiences;
    private final Registry registry;
    private final InstantSource clock;

    /**
     * @param keys the public keys that may have signed tokens (several during key rotation)
     * @param issuers the accepted bound-token issuers; the first is the one this server issues with. Legacy tokens
     *     ({@value ServiceAccountTokenIssuer#LEGACY_ISSUER}) are always accepted
     * @param implicitAudiences the API server's audiences, which legacy tokens (without {@code aud}) are valid for
     */
    public ServiceAccountTokenAuthenticator(List<PublicKey> keys, List<String> issuers, List<String> implicitAudiences, Registry registry, InstantSource clock) {
        this.keys = List.copyOf(requireNonNull(keys, "keys is null"));
        this.issuers = List.copyOf(requireNonNull(issuers, "issuers is null"));
        this.implicitAudiences = List.copyOf(requireNonNull(implicitAudiences, "implicitAudiences is null"));
        this.registry = requireNonNull(registry, "registry is null");
        this.clock = requireNonNull(clock, "clock is null");
        if (this.keys.isEmpty()) {
            throw new IllegalArgumentException("at least one service account public key is required");
        }
    }

    @Override
    public Optional<TokenAuthentication> authenticateToken(String token, List<String> audiences) {
        if (token.chars().filter(c -> c == '.').count() != 2) {
            return Optional.empty();
        }
        String issuer;
        try {
            JwtContext unverified = new JwtConsumerBuilder()
                    .setSkipAllValidators()
                    .setDisableRequireSignature()
                    .setSkipSignatureVerification()
                    .build()
                    .process(token);
            issuer = unverified.getJwtClaims().getIssuer();
        } catch (InvalidJwtException | MalformedClaimException e) {
            return Optional.empty();
        }
        boolean legacy = ServiceAccountTokenIssuer.LEGACY_ISSUER.equals(issuer);
        if (issuer == null || (!legacy && !issuers.contains(issuer))) {
            return Optional.empty();
        }
        JwtClaims claims = verify(token, legacy);
        List<String> validAudiences = intersectAudiences(claims, legacy, audiences);
        UserInfo user = legacy ? validateLegacy(token, claims) : validateBound(claims);
        return Optional.of(new TokenAuthentication(user, validAudiences));
    }

    private JwtClaims verify(String token, boolean legacy) {
        for (PublicKey key : keys) {
            JwtConsumerBuilder builder = new JwtConsumerBuilder()
                    .setVerificationKey(key)
                    .setJwsAlgorithmConstraints(new AlgorithmConstraints(AlgorithmConstraints.ConstraintType.PERMIT,
                            ServiceAccountTokenIssuer.supportedAlgorithms().toArray(String[]::new)))
                    .setSkipDefaultAudienceValidation()
                    .setEvaluationTime(NumericDate.fromMilliseconds(clock.millis()))
                    .setAllowedClockSkewInSeconds(LEEWAY_SECONDS)
                    .setRelaxVerificationKeyValidation();
            if (!legacy) {
                builder.setRequireExpirationTime();
            }
            JwtConsumer consumer = builder.build();
            try {
                return consumer.processToClaims(token);
            } catch (InvalidJwtException e) {
                // jose4j checks the signature before the claims, so a claims error means this key verified it.
                if (e.hasExpired()) {
                    throw new InvalidTokenException("service account token has expired");
                }
                if (e.hasErrorCode(ErrorCodes.NOT_YET_VALID)) {
                    throw new InvalidTokenException("service account token is not valid yet");
                }
                if (e.hasErrorCode(ErrorCodes.EXPIRATION_MISSING)) {
                    throw new InvalidTokenException("service account token has no expiration");
                }
                // otherwise the signature did not verify with this key: try the next one
            }
        }
        throw new InvalidTokenException("invalid bearer token: signature verification failed");
    }

    private List<String> intersectAudiences(JwtClaims claims, boolean legacy, List<String> requested) {
        List<String> tokenAudiences;
        try {
            tokenAudiences = claims.hasAudience() ? claims.getAudience() : List.of();
        } catch (MalformedClaimException e) {
            throw new InvalidTokenException("invalid audience claim");
        }
        if (legacy && tokenAudiences.isEmpty()) {
            tokenAudiences = implicitAudiences;
        }
        List<String> intersection = new ArrayList<>();
        for (String audience : tokenAudiences) {
            if (requested.contains(audience) && !intersection.contains(audience)) {
                intersection.add(audience);
            }
        }
        if (intersection.isEmpty()) {
            throw new InvalidTokenException("token audiences " + quoted(tokenAudiences) + " is invalid for the target audiences " + quoted(requested));
        }
        return intersection;
    }

    private UserInfo validateBound(JwtClaims claims) {
        Object rawKubernetes = claims.getClaimValue(ServiceAccountTokenIssuer.KUBERNETES_CLAIM);
        if (!(rawKubernetes instanceof Map<?, ?> kubernetes)) {
            throw new InvalidTokenException("service account token is missing the kubernetes.io claim");
        }
        String namespace = string(kubernetes.get("namespace"));
        ObjectReference serviceAccountReference = reference(kubernetes.get("serviceaccount"))
                .orElseThrow(() -> new InvalidTokenException("service account token is missing the service account claim"));
        if (namespace.isEmpty() || serviceAccountReference.name().isEmpty()) {
            throw new InvalidTokenException("service account token is missing the namespace or service account name");
        }
        ObjectNode serviceAccount = find(SERVICE_ACCOUNTS, namespace, serviceAccountReference.name())
                .orElseThrow(() -> new InvalidTokenException("serviceaccounts \"" + serviceAccountReference.name() + "\" not found"));
        String serviceAccountUid = uid(serviceAccount);
        if (!serviceAccountUid.equals(serviceAccountReference.uid())) {
            throw new InvalidTokenException("service account UID (" + serviceAccountUid + ") does not match claim (" + serviceAccountReference.uid() + ")");
        }
        Instant invalidIfDeletedBefore = clock.instant().minus(DELETION_GRACE);
        if (deletedBefore(serviceAccount, invalidIfDeletedBefore)) {
            throw new InvalidTokenException("service account " + namespace + "/" + serviceAccountReference.name() + " has been deleted");
        }
        Map<String, List<String>> extra = new LinkedHashMap<>();
        Optional<ObjectReference> podReference = reference(kubernetes.get("pod"));
        if (podReference.isPresent()) {
            checkBoundObject(PODS, "pod", namespace, podReference.get(), invalidIfDeletedBefore);
            extra.put(ServiceAccounts.POD_NAME_EXTRA, List.of(podReference.get().name()));
            extra.put(ServiceAccounts.POD_UID_EXTRA, List.of(podReference.get().uid()));
        }
        Optional<ObjectReference> secretReference = reference(kubernetes.get("secret"));
        if (secretReference.isPresent()) {
            checkBoundObject(SECRETS, "secret", namespace, secretReference.get(), invalidIfDeletedBefore);
        }
        Optional<ObjectReference> nodeReference = reference(kubernetes.get("node"));
        if (nodeReference.isPresent()) {
            // Upstream validates the node only when the token is bound to it directly; a pod-bound token merely
            // records where the pod ran.
            extra.put(ServiceAccounts.NODE_NAME_EXTRA, List.of(nodeReference.get().name()));
            extra.put(ServiceAccounts.NODE_UID_EXTRA, List.of(nodeReference.get().uid()));
        }
        try {
            String jwtId = claims.getJwtId();
            if (jwtId != null && !jwtId.isEmpty()) {
                extra.put(ServiceAccounts.CREDENTIAL_ID_EXTRA, List.of("JTI=" + jwtId));
            }
        } catch (MalformedClaimException e) {
            throw new InvalidTokenException("invalid jti claim");
        }
        return user(namespace, serviceAccountReference.name(), serviceAccountUid, extra);
    }

    private UserInfo validateLegacy(String token, JwtClaims claims) {
        String namespace = string(claims.getClaimValue(ServiceAccountTokenIssuer.LEGACY_NAMESPACE_CLAIM));
        String secretName = string(claims.getClaimValue(ServiceAccountTokenIssuer.LEGACY_SECRET_NAME_CLAIM));
        String name = string(claims.getClaimValue(ServiceAccountTokenIssuer.LEGACY_SERVICE_ACCOUNT_NAME_CLAIM));
        String claimedUid = string(claims.getClaimValue(ServiceAccountTokenIssuer.LEGACY_SERVICE_ACCOUNT_UID_CLAIM));
        if (namespace.isEmpty() || secretName.isEmpty() || name.isEmpty()) {
            throw new InvalidTokenException("service account token is missing the namespace, secret or service account name");
        }
        ObjectNode secret = find(SECRETS, namespace, secretName)
                .orElseThrow(() -> new InvalidTokenException("secrets \"" + secretName + "\" not found"));
        if (secret.path("metadata").hasNonNull("deletionTimestamp")) {
            throw new InvalidTokenException("token secret " + namespace + "/" + secretName + " is being deleted");
        }
        String stored = secret.path("data").path("token").asText("");
        byte[] storedToken;
        try {
            storedToken = Base64.getDecoder().decode(stored);
        } catch (IllegalArgumentException e) {
            storedToken = new byte[0];
        }
        if (!MessageDigest.isEqual(storedToken, token.getBytes(StandardCharsets.UTF_8))) {
            throw new InvalidTokenException("token does not match the token stored in secret " + namespace + "/" + secretName);
        }
        ObjectNode serviceAccount = find(SERVICE_ACCOUNTS, namespace, name)
                .orElseThrow(() -> new InvalidTokenException("serviceaccounts \"" + name + "\" not found"));
        String uid = uid(serviceAccount);
        if (!claimedUid.isEmpty() && !uid.equals(claimedUid)) {
            throw new InvalidTokenException("service account UID (" + uid + ") does not match claim (" + claimedUid + ")");
        }
        if (serviceAccount.path("metadata").hasNonNull("deletionTimestamp")) {
            throw new InvalidTokenException("service account " + namespace + "/" + name + " is being deleted");
        }
        return user(namespace, name, uid, Map.of());
    }

    private void checkBoundObject(GroupVersionResource resource, String kind, String namespace, ObjectReference reference, Instant invalidIfDeletedBefore) {
        ObjectNode object = find(resource, namespace, reference.name())
                .orElseThrow(() -> new InvalidTokenException(resource.resource() + " \"" + reference.name() + "\" not found"));
        String uid = uid(object);
        if (!uid.equals(reference.uid())) {
            throw new InvalidTokenException(kind + " UID (" + uid + ") does not match claim (" + reference.uid() + ")");
        }
        if (deletedBefore(object, invalidIfDeletedBefore)) {
            throw new InvalidTokenException(kind + " " + namespace + "/" + reference.name() + " has been deleted");
        }
    }

    private static UserInfo user(String namespace, String name, String uid, Map<String, List<String>> extra) {
        List<String> groups = new ArrayList<>(ServiceAccounts.groups(namespace));
        groups.add(UserInfo.AUTHENTICATED_GROUP);
        return new UserInfo(ServiceAccounts.username(namespace, name), uid, groups, extra);
    }

    private Optional<ObjectNode> find(GroupVersionResource resource, String namespace, String name) {
        try {
            return Optional.of(registry.require(resource).get(namespace, name));
        } catch (StatusException e) {
            if (e.code() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static boolean deletedBefore(ObjectNode object, Instant limit) {
        JsonNode deletion = object.path("metadata").path("deletionTimestamp");
        if (!deletion.isTextual()) {
            return false;
        }
        try {
            return Instant.parse(deletion.asText()).isBefore(limit);
        } catch (DateTimeParseException e) {
            return true;
        }
    }

    private static String uid(ObjectNode object) {
        return object.path("metadata").path("uid").asText("");
    }

    private static Optional<ObjectReference> reference(Object value) {
        if (value instanceof Map<?, ?> map) {
            return Optional.of(new ObjectReference(string(map.get("name")), string(map.get("uid"))));
        }
        return Optional.empty();
    }

    private static String string(Object value) {
        return value instanceof String string ? string : "";
    }

    private static String quoted(List<String> values) {
        StringBuilder builder = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            builder.append(i == 0 ? "" : " ").append('"').append(values.get(i)).append('"');
        }
        return builder.append(']').toString();
    }
}
