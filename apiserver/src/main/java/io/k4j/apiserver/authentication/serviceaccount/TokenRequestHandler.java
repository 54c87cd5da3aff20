package io.k4j.apiserver.authentication.serviceaccount;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.Registry;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token}: issues a bound service-account token
 * (authentication.k8s.io/v1 TokenRequest) as upstream does. {@code spec.audiences} defaults to the API server's
 * audiences, {@code spec.expirationSeconds} to 3600 and must be at least 600 (and at most 2^32); a
 * {@code boundObjectRef} may name a Pod (which must run as this service account) or a Secret of the namespace, and
 * its uid, when given, must match. Tokens for pods that ask for the kubelet's default 3607 s are extended to a year
 * with a {@code warnafter} at the requested time, as upstream does for projected volumes. Thread-safe.
 */
public final class TokenRequestHandler implements SubresourceHandler {
    public static final long DEFAULT_EXPIRATION_SECONDS = 3600;
    public static final long MINIMUM_EXPIRATION_SECONDS = 600;
    private static final long MAXIMUM_EXPIRATION_SECONDS = 1L << 32;
    /** The kubelet asks for this odd duration so the API server can recognise projected-volume tokens. */
    static final long KUBELET_EXPIRATION_SECONDS = 3607;
    static final Duration EXTENDED_EXPIRATION = Duration.ofDays(365);

    private static final String GROUP = "authentication.k8s.io";
    private static final String KIND = "TokenRequest";

    private final ServiceAccountTokenIssuer issuer;
    private final List<String> apiAudiences;
    private final Registry registry;
    private final boolean extendKubeletTokens;

    public TokenRequestHandler(ServiceAccountTokenIssuer issuer, List<String> apiAudiences, Registry registry, boolean extendKubeletTokens) {
        this.issuer = requireNonNull(issuer, "issuer is null");
        this.apiAudiences = List.copyOf(requireNonNull(apiAudiences, "apiAudiences is null"));
        this.registry = requireNonNull(registry, "registry is null");
        this.extendKubeletTokens = extendKubeletTokens;
    }

    @Override
    public String subresource() {
        return "token";
    }

    @Override
    public String apiVersion() {
        return GROUP + "/v1";
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public ObjectNode create(Request request, ObjectNode body) {
        String namespace = request.namespace();
        String name = request.name();
        ObjectNode response = body.deepCopy();
        response.put("apiVersion", apiVersion());
        response.put("kind", KIND);
        ObjectNode metadata = response.has("metadata") && response.get("metadata").isObject() ? (ObjectNode) response.get("metadata") : response.putObject("metadata");
        FieldErrors errors = new FieldErrors();
        String bodyName = metadata.path("name").asText("");
        if (!bodyName.isEmpty() && !bodyName.equals(name)) {
            errors.add(FieldError.invalid("metadata.name", bodyName, "must match the service account name if specified"));
        }
        String bodyNamespace = metadata.path("namespace").asText("");
        if (!bodyNamespace.isEmpty() && !bodyNamespace.equals(namespace)) {
            errors.add(FieldError.invalid("metadata.namespace", bodyNamespace, "must match the service account namespace if specified"));
        }
        ObjectNode spec = response.has("spec") && response.get("spec").isObject() ? (ObjectNode) response.get("spec") : response.putObject("spec");
        long expirationSeconds = spec.path("expirationSeconds").isIntegralNumber() ? spec.get("expirationSeconds").asLong() : DEFAULT_EXPIRATION_SECONDS;
        spec.put("expirationSeconds", expirationSeconds);
        if (expirationSeconds < MINIMUM_EXPIRATION_SECONDS) {
            errors.add(FieldError.invalid("spec.expirationSeconds", expirationSeconds, "may not specify a duration less than 10 minutes"));
        } else if (expirationSeconds > MAXIMUM_EXPIRATION_SECONDS) {
            errors.add(FieldError.invalid("spec.expirationSeconds", expirationSeconds, "may not specify a duration larger than 2^32 seconds"));
        }
        List<String> audiences = new ArrayList<>();
        for (JsonNode audience : spec.path("audiences")) {
            audiences.add(audience.asText());
        }
        if (audiences.isEmpty()) {
            audiences.addAll(apiAudiences);
            ArrayNode array = spec.putArray("audiences");
            audiences.forEach(array::add);
        }
        if (!errors.isEmpty()) {
            throw StatusException.invalid(GROUP, KIND, name, errors);
        }

        ObjectNode serviceAccount = request.parent().get(namespace, name);
        ObjectReference serviceAccountReference = new ObjectReference(name, serviceAccount.path("metadata").path("uid").asText(""));

        Optional<ObjectReference> pod = Optional.empty();
        Optional<ObjectReference> secret = Optional.empty();
        Optional<ObjectReference> node = Optional.empty();
        JsonNode boundObject = spec.path("boundObjectRef");
        if (boundObject.isObject()) {
            String boundKind = boundObject.path("kind").asText("");
            String boundApiVersion = boundObject.path("apiVersion").asText("");
            String boundName = boundObject.path("name").asText("");
            String boundUid = boundObject.path("uid").asText("");
            GroupVersionKind gvk = GroupVersionKind.of(boundApiVersion, boundKind);
            String uid;
            if (gvk.group().isEmpty() && boundKind.equals("Pod")) {
                ObjectNode boundPod = registry.require(ServiceAccountTokenAuthenticator.PODS).get(namespace, boundName);
                String podServiceAccount = boundPod.path("spec").path("serviceAccountName").asText("default");
                if (!name.equals(podServiceAccount)) {
                    throw StatusException.badRequest("cannot bind token for serviceaccount \"" + name + "\" to pod running with different serviceaccount name.");
                }
                uid = boundPod.path("metadata").path("uid").asText("");
                pod = Optional.of(new ObjectReference(boundName, uid));
                node = nodeOf(boundPod);
            } else if (gvk.group().isEmpty() && boundKind.equals("Secret")) {
                ObjectNode boundSecret = registry.require(ServiceAccountTokenAuthenticator.SECRETS).get(namespace, boundName);
                uid = boundSecret.path("metadata").path("uid").asText("");
                secret = Optional.of(new ObjectReference(boundName, uid));
            } else {
                throw StatusException.badRequest("cannot bind token to object of type " + gvkString(gvk));
            }
            if (!boundUid.isEmpty() && !boundUid.equals(uid)) {
                throw StatusException.conflict(gvk.group(), boundKind, boundName, "the UID in the bound object reference (" + boundUid
                        + ") does not match the UID in record. The object might have been deleted and then recreated");
            }
        }

        Duration validity = Duration.ofSeconds(expirationSeconds);
        Optional<Duration> warnAfter = Optional.empty();
        if (extendKubeletTokens && pod.isPresent() && expirationSeconds == KUBELET_EXPIRATION_SECONDS) {
            warnAfter = Optional.of(validity);
            validity = EXTENDED_EXPIRATION;
        }
        SignedToken token = issuer.issue(new TokenClaims(namespace, serviceAccountReference, audiences, validity, pod, secret, node, warnAfter));
        ObjectNode status = response.putObject("status");
        status.put("token", token.token());
        // The response states the requested lifetime even when the token lives longer (see warnafter).
        Instant reported = warnAfter.isPresent() ? token.expiration().minus(validity).plusSeconds(expirationSeconds) : token.expiration();
        status.put("expirationTimestamp", reported.truncatedTo(ChronoUnit.SECONDS).toString());
        return response;
    }

    private Optional<ObjectReference> nodeOf(ObjectNode pod) {
        String nodeName = pod.path("spec").path("nodeName").asText("");
        if (nodeName.isEmpty()) {
            return Optional.empty();
        }
        try {
            ObjectNode node = registry.require(ServiceAccountTokenAuthenticator.NODES).get("", nodeName);
            return Optional.of(new ObjectReference(nodeName, node.path("metadata").path("uid").asText("")));
        } catch (StatusException e) {
            if (e.code() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static String gvkString(GroupVersionKind gvk) {
        return gvk.group() + "/" + gvk.version() + ", Kind=" + gvk.kind();
    }
}
