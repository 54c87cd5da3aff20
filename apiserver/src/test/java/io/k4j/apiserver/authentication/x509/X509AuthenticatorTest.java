package io.k4j.apiserver.authentication.x509;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.CertificateAuthority;
import io.k4j.apiserver.pki.KeyAlgorithm;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class X509AuthenticatorTest {
    private final CertificateAuthority authority = CertificateAuthority.create("test-ca", KeyAlgorithm.ECDSA_P256, Duration.ofDays(10), InstantSource.system());

    @Test
    void commonNameIsTheUserAndOrganizationsAreGroups() {
        CertificateAndKey client = authority.issueClientCertificate("system:node:n1", List.of("system:nodes"), KeyAlgorithm.ECDSA_P256, Duration.ofDays(1));

        UserInfo user = new X509Authenticator(InstantSource.system())
                .authenticate(new AuthenticationRequest(Map.of(), List.of(client.certificate(), authority.certificate())))
                .orElseThrow();

        assertThat(user.name()).isEqualTo("system:node:n1");
        assertThat(user.groups()).containsExactly("system:nodes", "system:authenticated");
        assertThat(user.extra().get("authentication.kubernetes.io/credential-id").get(0)).startsWith("X509SHA256=");
    }

    @Test
    void noCertificateIsNotThisAuthenticatorsKind() {
        assertThat(new X509Authenticator(InstantSource.system()).authenticate(new AuthenticationRequest(Map.of(), List.of()))).isEmpty();
    }

    @Test
    void expiredCertificateIsUnauthorized() {
        CertificateAndKey client = authority.issueClientCertificate("bob", List.of(), KeyAlgorithm.ECDSA_P256, Duration.ofHours(1));
        X509Authenticator later = new X509Authenticator(() -> Instant.now().plus(Duration.ofHours(2)));

        assertThatThrownBy(() -> later.authenticate(new AuthenticationRequest(Map.of(), List.of(client.certificate()))))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(401));
    }

    @Test
    void servingCertificateCannotAuthenticateAClient() {
        CertificateAndKey server = authority.issueServingCertificate("server", List.of("localhost"), List.of(), KeyAlgorithm.ECDSA_P256, Duration.ofDays(1));

        assertThatThrownBy(() -> new X509Authenticator(InstantSource.system()).authenticate(new AuthenticationRequest(Map.of(), List.of(server.certificate()))))
                .isInstanceOf(StatusException.class);
    }
}
