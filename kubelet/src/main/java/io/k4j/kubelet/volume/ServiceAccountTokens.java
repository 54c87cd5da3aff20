package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.authentication.BoundObjectReference;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestSpec;
import io.k4j.kubelet.podobjects.PodObjectSource;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Service-account tokens for projected volumes, as upstream's kubelet token manager: a token is requested through
 * TokenRequest bound to the pod, kept, and requested again once 80% of its lifetime has passed (or it is older than
 * 24 hours); when the renewal fails the old token is served while it is still valid. Thread-safe.
 */
final class ServiceAccountTokens {
    private static final Duration MAX_TTL = Duration.ofHours(24);

    private final PodObjectSource objects;
    private final InstantSource clock;
    private final Map<Key, Entry> tokens = new ConcurrentHashMap<>();

    record Key(String namespace, String serviceAccount, String audience, long expirationSeconds, String podName, String podUid) {}

    private record Entry(String token, Instant expiration, long expirationSeconds) {}

    ServiceAccountTokens(PodObjectSource objects, InstantSource clock) {
        this.objects = requireNonNull(objects, "objects is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The current token for the key, requesting a new one when none is kept or the kept one is due for renewal. */
    String token(Key key) throws IOException {
        Entry entry = tokens.get(key);
        Instant now = clock.instant();
        if (entry != null && !requiresRefresh(entry, now)) {
            return entry.token();
        }
        TokenRequest answered;
        try {
            answered = objects.requestToken(key.namespace(), key.serviceAccount(), request(key));
        } catch (IOException e) {
            if (entry != null && now.isBefore(entry.expiration())) {
                return entry.token();
            }
            throw e;
        }
        if (answered.getStatus() == null || answered.getStatus().getToken() == null) {
            throw new IOException("TokenRequest for service account \"" + key.serviceAccount() + "\" returned no token");
        }
        Instant expiration = answered.getStatus().getExpirationTimestamp() == null
                ? now.plusSeconds(key.expirationSeconds())
                : Instant.parse(answered.getStatus().getExpirationTimestamp());
        long expirationSeconds = answered.getSpec() != null && answered.getSpec().getExpirationSeconds() != null
                ? answered.getSpec().getExpirationSeconds()
                : key.expirationSeconds();
        tokens.put(key, new Entry(answered.getStatus().getToken(), expiration, expirationSeconds));
        return answered.getStatus().getToken();
    }

    /** Forgets the tokens of a pod. */
    void forget(String podUid) {
        tokens.keySet().removeIf(key -> key.podUid().equals(podUid));
    }

    private static boolean requiresRefresh(Entry entry, Instant now) {
        Instant issuedAt = entry.expiration().minusSeconds(entry.expirationSeconds());
        if (now.isAfter(issuedAt.plus(MAX_TTL))) {
            return true;
        }
        // Renew once less than 20% of the lifetime is left.
        return now.isAfter(entry.expiration().minusSeconds(entry.expirationSeconds() * 20 / 100));
    }

    private static TokenRequest request(Key key) {
        TokenRequest request = new TokenRequest();
        request.setApiVersion("authentication.k8s.io/v1");
        request.setKind("TokenRequest");
        TokenRequestSpec spec = new TokenRequestSpec();
        spec.setAudiences(key.audience().isEmpty() ? List.of() : List.of(key.audience()));
        spec.setExpirationSeconds(key.expirationSeconds());
        BoundObjectReference bound = new BoundObjectReference();
        bound.setApiVersion("v1");
        bound.setKind("Pod");
        bound.setName(key.podName());
        bound.setUid(key.podUid());
        spec.setBoundObjectRef(bound);
        request.setSpec(spec);
        return request;
    }
}
