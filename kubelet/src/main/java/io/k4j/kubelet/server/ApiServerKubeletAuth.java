package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * {@link KubeletAuth} through the apiserver: bearer tokens by {@code TokenReview}, decisions by
 * {@code SubjectAccessReview}, as the node's own identity (upstream's {@code system:node} role may create both).
 * Answers are cached as upstream's kubelet caches them by default: tokens for 2 minutes, allowed decisions for
 * 5 minutes and denied ones for 30 seconds.
 *
 * <p>Thread-safe.
 */
public final class ApiServerKubeletAuth implements KubeletAuth {
    static final Duration TOKEN_TTL = Duration.ofMinutes(2);
    static final Duration ALLOWED_TTL = Duration.ofMinutes(5);
    static final Duration DENIED_TTL = Duration.ofSeconds(30);
    private static final String AUTHENTICATED_GROUP = "system:authenticated";
    private static final int MAX_CACHED = 1024;

    private final KubernetesClient client;
    private final InstantSource clock;
    private final Map<String, Cached<Optional<KubeletUser>>> tokens = new ConcurrentHashMap<>();
    private final Map<List<Object>, Cached<Boolean>> decisions = new ConcurrentHashMap<>();

    private record Cached<T>(T value, Instant expires) {}

    public ApiServerKubeletAuth(KubernetesClient client, InstantSource clock) {
        this.client = requireNonNull(client, "client is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public Optional<KubeletUser> authenticate(List<X509Certificate> verifiedChain, Optional<String> bearerToken) {
        if (!verifiedChain.isEmpty()) {
            return Optional.of(fromCertificate(verifiedChain.get(0)));
        }
        if (bearerToken.isEmpty() || bearerToken.get().isEmpty()) {
            return Optional.empty();
        }
        String token = bearerToken.get();
        Cached<Optional<KubeletUser>> cached = tokens.get(token);
        Instant now = clock.instant();
        if (cached != null && now.isBefore(cached.expires())) {
            return cached.value();
        }
        TokenReview review = client.authentication().v1().tokenReviews().create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build());
        Optional<KubeletUser> user = Optional.empty();
        if (review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAuthenticated()) && review.getStatus().getUser() != null) {
            io.fabric8.kubernetes.api.model.authentication.UserInfo info = review.getStatus().getUser();
            Set<String> groups = new LinkedHashSet<>(info.getGroups() == null ? List.of() : info.getGroups());
            groups.add(AUTHENTICATED_GROUP);
            user = Optional.of(new KubeletUser(info.getUsername(), info.getUid() == null ? "" : info.getUid(), List.copyOf(groups),
                    info.getExtra() == null ? Map.of() : info.getExtra()));
        }
        remember(tokens, token, new Cached<>(user, now.plus(TOKEN_TTL)));
        return user;
    }

    @Override
    public boolean authorize(KubeletUser user, String verb, String nodeName, String subresource) {
        List<Object> key = List.of(user, verb, nodeName, subresource);
        Instant now = clock.instant();
        Cached<Boolean> cached = decisions.get(key);
        if (cached != null && now.isBefore(cached.expires())) {
            return cached.value();
        }
        SubjectAccessReview review = client.authorization().v1().subjectAccessReview().create(new SubjectAccessReviewBuilder()
                .withNewSpec()
                .withUser(user.name())
                .withUid(user.uid().isEmpty() ? null : user.uid())
                .withGroups(user.groups())
                .withExtra(user.extra().isEmpty() ? null : user.extra())
                .withNewResourceAttributes()
                .withVerb(verb)
                .withGroup("")
                .withVersion("v1")
                .withResource("nodes")
                .withSubresource(subresource)
                .withName(nodeName)
                .endResourceAttributes()
                .endSpec()
                .build());
        boolean allowed = review.getStatus() != null && Boolean.TRUE.equals(review.getStatus().getAllowed());
        remember(decisions, key, new Cached<>(allowed, now.plus(allowed ? ALLOWED_TTL : DENIED_TTL)));
        return allowed;
    }

    private <K, V> void remember(Map<K, Cached<V>> cache, K key, Cached<V> value) {
        if (cache.size() >= MAX_CACHED) {
            Instant now = clock.instant();
            cache.values().removeIf(entry -> !now.isBefore(entry.expires()));
            if (cache.size() >= MAX_CACHED) {
                cache.clear();
            }
        }
        cache.put(key, value);
    }

    /** User = the subject's common name, groups = its organizations, as upstream's x509 authenticator maps them. */
    static KubeletUser fromCertificate(X509Certificate certificate) {
        String name = "";
        List<String> groups = new ArrayList<>();
        try {
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN") && name.isEmpty()) {
                    name = rdn.getValue().toString();
                } else if (rdn.getType().equalsIgnoreCase("O")) {
                    groups.add(rdn.getValue().toString());
                }
            }
        } catch (InvalidNameException e) {
            throw new IllegalArgumentException("unreadable certificate subject", e);
        }
        // LdapName lists RDNs from the last to the first; the subject's order is the reverse.
        java.util.Collections.reverse(groups);
        groups.add(AUTHENTICATED_GROUP);
        return new KubeletUser(name, "", groups, Map.of());
    }
}
