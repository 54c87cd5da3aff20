package io.k4j.apiserver.authentication.serviceaccount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import io.k4j.apiserver.pki.KeyAlgorithm;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.security.KeyPair;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TokenRequestHandlerTest {
    private static final String ISSUER = ServiceAccountTokenIssuer.DEFAULT_ISSUER;
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    private final InstantSource clock = () -> NOW;
    private final KeyPair keys = KeyAlgorithm.ECDSA_P256.generate();
    private InMemoryRegistry registry;
    private TokenRequestHandler handler;
    private ServiceAccountTokenAuthenticator authenticator;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        registry.create("serviceaccounts", "{'metadata':{'name':'default','namespace':'demo'}}");
        ServiceAccountTokenIssuer issuer = new ServiceAccountTokenIssuer(keys.getPrivate(), keys.getPublic(), ISSUER, clock);
        handler = new TokenRequestHandler(issuer, List.of(ISSUER), registry, true);
        authenticator = new ServiceAccountTokenAuthenticator(List.of(keys.getPublic()), List.of(ISSUER), List.of(ISSUER), registry, clock);
    }

    private ObjectNode post(String body) {
        SubresourceHandler.Request request = new SubresourceHandler.Request(registry.store("", "serviceaccounts"), "demo", "default",
                UserInfo.of("admin", List.of("system:masters")), false);
        return handler.create(request, InMemoryRegistry.parse(body));
    }

    @Test
    void kubectlCreateTokenGetsAnHourLongTokenForTheApiServer() {
        // what `kubectl create token default` sends
        ObjectNode response = post("{'kind':'TokenRequest','apiVersion':'authentication.k8s.io/v1','metadata':{'creationTimestamp':null},'spec':{'audiences':null,'boundObjectRef':null}}");

        assertThat(response.path("kind").asText()).isEqualTo("TokenRequest");
        assertThat(response.path("apiVersion").asText()).isEqualTo("authentication.k8s.io/v1");
        assertThat(response.path("spec").path("expirationSeconds").asLong()).isEqualTo(3600);
        assertThat(response.path("spec").path("audiences").get(0).asText()).isEqualTo(ISSUER);
        assertThat(response.path("status").path("expirationTimestamp").asText()).isEqualTo("2026-03-01T11:00:00Z");
        String token = response.path("status").path("token").asText();
        assertThat(authenticator.authenticateToken(token, List.of(ISSUER)).orElseThrow().user().name()).isEqualTo("system:serviceaccount:demo:default");
    }

    @Test
    void expirationBelowTenMinutesIsInvalid() {
        assertThatThrownBy(() -> post("{'spec':{'expirationSeconds':599}}"))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).isEqualTo("TokenRequest.authentication.k8s.io \"default\" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes");
                });
    }

    @Test
    void unknownServiceAccountIsNotFound() {
        SubresourceHandler.Request request = new SubresourceHandler.Request(registry.store("", "serviceaccounts"), "demo", "ghost",
                UserInfo.of("admin", List.of()), false);
        assertThatThrownBy(() -> handler.create(request, InMemoryRegistry.parse("{}")))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(404));
    }

    @Test
    void boundPodTokenCarriesThePodAndChecksItsUid() throws Exception {
        ObjectNode pod = registry.create("pods", "{'metadata':{'name':'web','namespace':'demo'},'spec':{'serviceAccountName':'default','nodeName':'n1'}}");
        registry.create("nodes", "{'metadata':{'name':'n1'}}");
        String uid = pod.path("metadata").path("uid").asText();

        ObjectNode response = post("{'spec':{'audiences':['api'],'expirationSeconds':3607,'boundObjectRef':{'kind':'Pod','apiVersion':'v1','name':'web','uid':'" + uid + "'}}}");

        String token = response.path("status").path("token").asText();
        JsonNode payload = new ObjectMapper().readTree(Base64.getUrlDecoder().decode(token.split("\\.")[1]));
        assertThat(payload.path("kubernetes.io").path("pod").path("uid").asText()).isEqualTo(uid);
        assertThat(payload.path("kubernetes.io").path("node").path("name").asText()).isEqualTo("n1");
        assertThat(payload.path("aud").get(0).asText()).isEqualTo("api");
        // the kubelet's 3607 s are extended to a year with a warning time at the requested expiry
        assertThat(payload.path("exp").asLong()).isEqualTo(NOW.plus(TokenRequestHandler.EXTENDED_EXPIRATION).getEpochSecond());
        assertThat(payload.path("kubernetes.io").path("warnafter").asLong()).isEqualTo(NOW.getEpochSecond() + 3607);
        assertThat(response.path("status").path("expirationTimestamp").asText()).isEqualTo("2026-03-01T11:00:07Z");

        assertThatThrownBy(() -> post("{'spec':{'boundObjectRef':{'kind':'Pod','apiVersion':'v1','name':'web','uid':'other'}}}"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(409));
        assertThatThrownBy(() -> post("{'spec':{'boundObjectRef':{'kind':'ConfigMap','apiVersion':'v1','name':'x'}}}"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("cannot bind token to object of type /v1, Kind=ConfigMap"));
    }

    @Test
    void podOfAnotherServiceAccountCannotBeBound() {
        registry.create("pods", "{'metadata':{'name':'other','namespace':'demo'},'spec':{'serviceAccountName':'builder'}}");

        assertThatThrownBy(() -> post("{'spec':{'boundObjectRef':{'kind':'Pod','apiVersion':'v1','name':'other'}}}"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(400));
    }

    @Test
    void discoveryDocumentsDescribeTheIssuerAndKeys() throws Exception {
        OidcDiscovery discovery = new OidcDiscovery(ISSUER, "", List.of(keys.getPublic()));
        ObjectMapper json = new ObjectMapper();

        JsonNode configuration = json.readTree(discovery.openidConfiguration());
        assertThat(configuration.path("issuer").asText()).isEqualTo(ISSUER);
        assertThat(configuration.path("jwks_uri").asText()).isEqualTo(ISSUER + "/openid/v1/jwks");
        assertThat(configuration.path("id_token_signing_alg_values_supported").get(0).asText()).isEqualTo("ES256");
        JsonNode key = json.readTree(discovery.jwks()).path("keys").get(0);
        assertThat(key.path("kty").asText()).isEqualTo("EC");
        assertThat(key.path("use").asText()).isEqualTo("sig");
        assertThat(key.path("kid").asText()).isEqualTo(ServiceAccountTokenIssuer.keyId(keys.getPublic()));
        assertThat(key.has("d")).isFalse();
    }
}
