package io.k4j.apiserver.registry.authentication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.serviceaccount.ObjectReference;
import io.k4j.apiserver.authentication.serviceaccount.ServiceAccountTokenAuthenticator;
import io.k4j.apiserver.authentication.serviceaccount.ServiceAccountTokenIssuer;
import io.k4j.apiserver.authentication.serviceaccount.TokenClaims;
import io.k4j.apiserver.authentication.token.TokenFileAuthenticator;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import io.k4j.apiserver.pki.KeyAlgorithm;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReviewResourcesTest {
    private static final String ISSUER = ServiceAccountTokenIssuer.DEFAULT_ISSUER;

    private final KeyPair keys = KeyAlgorithm.ECDSA_P256.generate();
    private InMemoryRegistry registry;
    private ServiceAccountTokenIssuer issuer;
    private TokenReviewResource tokenReviews;
    private ObjectReference serviceAccount;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        ObjectNode created = registry.create("serviceaccounts", "{'metadata':{'name':'default','namespace':'demo'}}");
        serviceAccount = new ObjectReference("default", created.path("metadata").path("uid").asText());
        issuer = new ServiceAccountTokenIssuer(keys.getPrivate(), keys.getPublic(), ISSUER, InstantSource.system());
        tokenReviews = new TokenReviewResource(List.of(
                TokenFileAuthenticator.parse("tokens", "static-token,alice,uid-a,dev\n"),
                new ServiceAccountTokenAuthenticator(List.of(keys.getPublic()), List.of(ISSUER), List.of(ISSUER), registry, InstantSource.system())),
                List.of(ISSUER));
    }

    private ObjectNode review(String token, List<String> audiences) {
        ObjectNode body = InMemoryRegistry.parse("{'apiVersion':'authentication.k8s.io/v1','kind':'TokenReview','metadata':{},'spec':{}}");
        ((ObjectNode) body.get("spec")).put("token", token);
        audiences.forEach(audience -> body.with("spec").withArray("audiences").add(audience));
        return tokenReviews.create(body, UserInfo.of("kube-apiserver", List.of()), "");
    }

    @Test
    void tokenReviewOfAServiceAccountToken() {
        String token = issuer.issue(new TokenClaims("demo", serviceAccount, List.of(ISSUER), Duration.ofHours(1), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty())).token();

        ObjectNode status = (ObjectNode) review(token, List.of()).get("status");

        assertThat(status.path("authenticated").asBoolean()).isTrue();
        assertThat(status.path("user").path("username").asText()).isEqualTo("system:serviceaccount:demo:default");
        assertThat(status.path("user").path("uid").asText()).isEqualTo(serviceAccount.uid());
        assertThat(status.path("user").path("groups")).extracting(node -> node.asText())
                .containsExactly("system:serviceaccounts", "system:serviceaccounts:demo", "system:authenticated");
        assertThat(status.path("audiences").get(0).asText()).isEqualTo(ISSUER);
    }

    @Test
    void tokenReviewOfAStaticTokenAndOfBadTokens() {
        assertThat(review("static-token", List.of()).path("status").path("user").path("username").asText()).isEqualTo("alice");

        ObjectNode unknown = (ObjectNode) review("nobody-knows-me", List.of()).get("status");
        assertThat(unknown.path("authenticated").asBoolean()).isFalse();
        assertThat(unknown.has("error")).isFalse();

        String otherAudience = issuer.issue(new TokenClaims("demo", serviceAccount, List.of("vault"), Duration.ofHours(1), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty())).token();
        ObjectNode wrongAudience = (ObjectNode) review(otherAudience, List.of()).get("status");
        assertThat(wrongAudience.path("authenticated").asBoolean()).isFalse();
        assertThat(wrongAudience.path("error").asText()).contains("is invalid for the target audiences");
        assertThat(review(otherAudience, List.of("vault")).path("status").path("authenticated").asBoolean()).isTrue();
    }

    @Test
    void tokenIsRequired() {
        assertThatThrownBy(() -> review("", List.of())).isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(400));
    }

    @Test
    void selfSubjectReviewShowsTheRequester() {
        UserInfo user = new UserInfo("jane", "u-1", List.of("dev", "system:authenticated"), Map.of("scopes", List.of("a")));
        ObjectNode response = new SelfSubjectReviewResource(() -> Instant.parse("2026-05-01T12:00:00.123Z"))
                .create(InMemoryRegistry.parse("{'apiVersion':'authentication.k8s.io/v1','kind':'SelfSubjectReview','metadata':{'creationTimestamp':null},'status':{'userInfo':{}}}"), user, "");

        assertThat(response.path("kind").asText()).isEqualTo("SelfSubjectReview");
        assertThat(response.path("metadata").path("creationTimestamp").asText()).isEqualTo("2026-05-01T12:00:00Z");
        ObjectNode userInfo = (ObjectNode) response.path("status").path("userInfo");
        assertThat(userInfo).isEqualTo(InMemoryRegistry.parse("{'username':'jane','uid':'u-1','groups':['dev','system:authenticated'],'extra':{'scopes':['a']}}"));
    }
}
