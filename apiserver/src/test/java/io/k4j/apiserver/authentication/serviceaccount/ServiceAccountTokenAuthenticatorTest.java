package io.k4j.apiserver.authentication.serviceaccount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.token.BearerTokenAuthenticator;
import io.k4j.apiserver.authentication.token.InvalidTokenException;
import io.k4j.apiserver.authentication.token.TokenAuthentication;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import io.k4j.apiserver.pki.KeyAlgorithm;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServiceAccountTokenAuthenticatorTest {
    private static final String ISSUER = ServiceAccountTokenIssuer.DEFAULT_ISSUER;
    private static final List<String> API_AUDIENCES = List.of(ISSUER);

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final InstantSource clock = () -> now.get();
    private final KeyPair keys = KeyAlgorithm.ECDSA_P256.generate();
    private InMemoryRegistry registry;
    private ServiceAccountTokenIssuer issuer;
    private ServiceAccountTokenAuthenticator authenticator;
    private ObjectReference builder;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        issuer = new ServiceAccountTokenIssuer(keys.getPrivate(), keys.getPublic(), ISSUER, clock);
        authenticator = new ServiceAccountTokenAuthenticator(List.of(keys.getPublic()), List.of(ISSUER), API_AUDIENCES, registry, clock);
        ObjectNode serviceAccount = registry.create("serviceaccounts", "{'metadata':{'name':'builder','namespace':'ci'}}");
        builder = new ObjectReference("builder", serviceAccount.path("metadata").path("uid").asText());
    }

    private TokenClaims claims(List<String> audiences, Duration validity, Optional<ObjectReference> pod, Optional<ObjectReference> secret) {
        return new TokenClaims("ci", builder, audiences, validity, pod, secret, Optional.empty(), Optional.empty());
    }

    @Test
    void validTokenYieldsTheServiceAccountUser() {
        String token = issuer.issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.empty(), Optional.empty())).token();

        TokenAuthentication result = authenticator.authenticateToken(token, API_AUDIENCES).orElseThrow();

        assertThat(result.user().name()).isEqualTo("system:serviceaccount:ci:builder");
        assertThat(result.user().uid()).isEqualTo(builder.uid());
        assertThat(result.user().groups()).containsExactly("system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated");
        assertThat(result.user().extra().get("authentication.kubernetes.io/credential-id").get(0)).startsWith("JTI=");
        assertThat(result.audiences()).containsExactly(ISSUER);
    }

    @Test
    void bearerHeaderIsReadAndInvalidTokensAreUnauthorized() {
        String token = issuer.issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.empty(), Optional.empty())).token();
        BearerTokenAuthenticator bearer = new BearerTokenAuthenticator(authenticator, API_AUDIENCES);

        Optional<UserInfo> user = bearer.authenticate(new AuthenticationRequest(Map.of("authorization", List.of("Bearer " + token)), List.of()));
        assertThat(user).map(UserInfo::name).contains("system:serviceaccount:ci:builder");
        assertThat(bearer.authenticate(new AuthenticationRequest(Map.of(), List.of()))).isEmpty();
        assertThat(bearer.authenticate(new AuthenticationRequest(Map.of("authorization", List.of("Bearer not-a-jwt")), List.of()))).isEmpty();

        now.set(now.get().plus(Duration.ofHours(2)));
        assertThatThrownBy(() -> bearer.authenticate(new AuthenticationRequest(Map.of("authorization", List.of("Bearer " + token)), List.of())))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(401));
    }

    @Test
    void expiredTokenIsRejected() {
        String token = issuer.issue(claims(API_AUDIENCES, Duration.ofMinutes(10), Optional.empty(), Optional.empty())).token();
        now.set(now.get().plus(Duration.ofMinutes(12)));

        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessageContaining("expired");
    }

    @Test
    void tokenForAnotherAudienceIsRejected() {
        String token = issuer.issue(claims(List.of("vault"), Duration.ofHours(1), Optional.empty(), Optional.empty())).token();

        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessage("token audiences [\"vault\"] is invalid for the target audiences [\"" + ISSUER + "\"]");
        assertThat(authenticator.authenticateToken(token, List.of("vault", "other")).orElseThrow().audiences()).containsExactly("vault");
    }

    @Test
    void tokenSignedByAnotherKeyIsRejected() {
        KeyPair other = KeyAlgorithm.ECDSA_P256.generate();
        String token = new ServiceAccountTokenIssuer(other.getPrivate(), other.getPublic(), ISSUER, clock)
                .issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.empty(), Optional.empty())).token();

        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES)).isInstanceOf(InvalidTokenException.class);
    }

    @Test
    void tokenOfAnotherIssuerIsNotOurs() {
        String token = new ServiceAccountTokenIssuer(keys.getPrivate(), keys.getPublic(), "https://elsewhere", clock)
                .issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.empty(), Optional.empty())).token();

        assertThat(authenticator.authenticateToken(token, API_AUDIENCES)).isEmpty();
    }

    @Test
    void boundPodMustStillExistWithTheSameUid() {
        ObjectNode pod = registry.create("pods", "{'metadata':{'name':'web','namespace':'ci'},'spec':{'serviceAccountName':'builder'}}");
        ObjectReference podReference = new ObjectReference("web", pod.path("metadata").path("uid").asText());
        String token = issuer.issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.of(podReference), Optional.empty())).token();

        UserInfo user = authenticator.authenticateToken(token, API_AUDIENCES).orElseThrow().user();
        assertThat(user.extra()).containsEntry("authentication.kubernetes.io/pod-name", List.of("web"))
                .containsEntry("authentication.kubernetes.io/pod-uid", List.of(podReference.uid()));

        registry.store("", "pods").delete("ci", "web");
        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessage("pods \"web\" not found");

        registry.create("pods", "{'metadata':{'name':'web','namespace':'ci'},'spec':{'serviceAccountName':'builder'}}");
        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessageStartingWith("pod UID (");
    }

    @Test
    void podDeletedLongerThanAMinuteAgoInvalidatesItsTokens() {
        ObjectNode pod = registry.create("pods", "{'metadata':{'name':'web','namespace':'ci'}}");
        ObjectReference podReference = new ObjectReference("web", pod.path("metadata").path("uid").asText());
        String token = issuer.issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.of(podReference), Optional.empty())).token();
        registry.store("", "pods").guaranteedUpdate("ci", "web", "", object -> {
            object.with("metadata").put("deletionTimestamp", now.get().toString());
            return object;
        });

        assertThat(authenticator.authenticateToken(token, API_AUDIENCES)).isPresent();
        now.set(now.get().plus(Duration.ofMinutes(2)));
        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES)).hasMessage("pod ci/web has been deleted");
    }

    @Test
    void recreatedServiceAccountInvalidatesOldTokens() {
        String token = issuer.issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.empty(), Optional.empty())).token();
        registry.store("", "serviceaccounts").delete("ci", "builder");

        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES)).hasMessage("serviceaccounts \"builder\" not found");

        registry.create("serviceaccounts", "{'metadata':{'name':'builder','namespace':'ci'}}");
        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES)).hasMessageStartingWith("service account UID (");
    }

    @Test
    void boundSecretIsChecked() {
        ObjectNode secret = registry.create("secrets", "{'metadata':{'name':'creds','namespace':'ci'}}");
        String token = issuer.issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.empty(),
                Optional.of(new ObjectReference("creds", secret.path("metadata").path("uid").asText())))).token();

        assertThat(authenticator.authenticateToken(token, API_AUDIENCES)).isPresent();
        registry.store("", "secrets").delete("ci", "creds");
        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES)).hasMessage("secrets \"creds\" not found");
    }

    @Test
    void legacySecretTokensAreValidWhileTheSecretHoldsThem() {
        String token = issuer.issueLegacy("ci", builder, "builder-token");
        registry.create("secrets", "{'metadata':{'name':'builder-token','namespace':'ci'},'type':'kubernetes.io/service-account-token','data':{'token':'"
                + Base64.getEncoder().encodeToString(token.getBytes()) + "'}}");

        TokenAuthentication result = authenticator.authenticateToken(token, API_AUDIENCES).orElseThrow();
        assertThat(result.user().name()).isEqualTo("system:serviceaccount:ci:builder");
        assertThat(result.audiences()).containsExactly(ISSUER);

        registry.store("", "secrets").delete("ci", "builder-token");
        assertThatThrownBy(() -> authenticator.authenticateToken(token, API_AUDIENCES)).isInstanceOf(InvalidTokenException.class);
    }

    @Test
    void rsaKeysSignWithRs256() {
        KeyPair rsa = KeyAlgorithm.RSA_2048.generate();
        ServiceAccountTokenIssuer rsaIssuer = new ServiceAccountTokenIssuer(rsa.getPrivate(), rsa.getPublic(), ISSUER, clock);
        ServiceAccountTokenAuthenticator rsaAuthenticator = new ServiceAccountTokenAuthenticator(List.of(keys.getPublic(), rsa.getPublic()), List.of(ISSUER), API_AUDIENCES, registry, clock);
        String token = rsaIssuer.issue(claims(API_AUDIENCES, Duration.ofHours(1), Optional.empty(), Optional.empty())).token();

        String header = new String(Base64.getUrlDecoder().decode(token.substring(0, token.indexOf('.'))));
        assertThat(header).contains("\"alg\":\"RS256\"").contains("\"kid\":\"" + ServiceAccountTokenIssuer.keyId(rsa.getPublic()) + "\"");
        assertThat(rsaAuthenticator.authenticateToken(token, API_AUDIENCES)).isPresent();
    }
}
