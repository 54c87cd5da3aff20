package io.k4j.apiserver.pki;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.security.KeyPair;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.X509CertificateHolder;
import org.junit.jupiter.api.Test;

class CertificateAuthorityTest {
    private static final Instant NOW = Instant.parse("2026-11-22T10:15:30.5Z");
    private static final InstantSource CLOCK = InstantSource.fixed(NOW);

    @Test
    void theAuthorityIsASelfSignedCaWithItsKeyIdentifier() throws Exception {
        CertificateAuthority authority = CertificateAuthority.create("kubernetes-ca", KeyAlgorithm.ECDSA_P256, Duration.ofDays(3650), CLOCK);
        X509Certificate ca = authority.certificate();

        ca.verify(ca.getPublicKey());
        assertThat(ca.getVersion()).isEqualTo(3);
        assertThat(ca.getSubjectX500Principal().getName()).isEqualTo("CN=kubernetes-ca");
        assertThat(ca.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
        assertThat(ca.getBasicConstraints()).isEqualTo(Integer.MAX_VALUE);
        assertThat(ca.getCriticalExtensionOIDs()).containsExactlyInAnyOrder("2.5.29.19", "2.5.29.15");
        // digitalSignature, keyEncipherment, keyCertSign
        assertThat(ca.getKeyUsage()).startsWith(true, false, true, false, false, true, false);
        assertThat(ca.getNotBefore()).isEqualTo(Date.from(Instant.parse("2026-11-22T10:10:30Z")));
        assertThat(ca.getNotAfter()).isEqualTo(Date.from(Instant.parse("2036-11-19T10:15:30Z"))); // whole seconds
        byte[] parsedByBouncyCastle = SubjectKeyIdentifier.fromExtensions(new X509CertificateHolder(ca.getEncoded()).getExtensions()).getKeyIdentifier();
        assertThat(ClusterPki.subjectKeyIdentifier(ca)).contains(parsedByBouncyCastle);
        assertThat(ClusterPki.subjectKeyIdentifier(ca)).contains(CertificateBuilder.keyIdentifier(ca.getPublicKey()));
    }

    @Test
    void aServingCertificateChainsToTheAuthorityWithItsNames() throws Exception {
        CertificateAuthority authority = CertificateAuthority.create("kubernetes-ca", KeyAlgorithm.ECDSA_P256, Duration.ofDays(3650), CLOCK);

        CertificateAndKey serving = authority.issueServingCertificate("kube-apiserver", List.of("kubernetes", "kubernetes.default.svc.cluster.local"),
                List.of(InetAddress.getByName("10.43.0.1"), InetAddress.getByName("::1")), KeyAlgorithm.ECDSA_P256, Duration.ofDays(365));
        X509Certificate certificate = serving.certificate();

        certificate.verify(authority.certificate().getPublicKey());
        validate(certificate, authority.certificate());
        assertThat(certificate.getIssuerX500Principal()).isEqualTo(authority.certificate().getSubjectX500Principal());
        assertThat(certificate.getSubjectX500Principal().getName()).isEqualTo("CN=kube-apiserver");
        assertThat(certificate.getBasicConstraints()).isEqualTo(-1);
        assertThat(certificate.getKeyUsage()).startsWith(true, false, true, false, false, false);
        assertThat(certificate.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(certificate.getSubjectAlternativeNames()).containsExactly(
                List.of(2, "kubernetes"), List.of(2, "kubernetes.default.svc.cluster.local"), List.of(7, "10.43.0.1"), List.of(7, "0:0:0:0:0:0:0:1"));
        AuthorityKeyIdentifier authorityKey = AuthorityKeyIdentifier.fromExtensions(new X509CertificateHolder(certificate.getEncoded()).getExtensions());
        assertThat(authorityKey.getKeyIdentifierOctets()).isEqualTo(ClusterPki.subjectKeyIdentifier(authority.certificate()).orElseThrow());
        assertThat(certificate.getNotAfter()).isEqualTo(Date.from(Instant.parse("2027-11-22T10:15:30Z")));
    }

    @Test
    void aClientCertificateNamesTheUserAndGroupsWithAnRsaKeyUnderAnRsaAuthority() throws Exception {
        CertificateAuthority authority = CertificateAuthority.create("kubernetes-ca", KeyAlgorithm.RSA_2048, Duration.ofDays(3650), CLOCK);

        CertificateAndKey client = authority.issueClientCertificate("kubernetes-admin", List.of("system:masters", "team b"), KeyAlgorithm.RSA_2048,
                Duration.ofDays(365));

        validate(client.certificate(), authority.certificate());
        assertThat(client.certificate().getSigAlgName()).isEqualTo("SHA256withRSA");
        assertThat(client.certificate().getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
        assertThat(client.certificate().getSubjectAlternativeNames()).isNull();
        assertThat(ClusterPki.commonName(client.certificate())).isEqualTo("kubernetes-admin");
        assertThat(ClusterPki.organizations(client.certificate())).containsExactly("system:masters", "team b");
    }

    @Test
    void aLeafDoesNotOutliveItsAuthorityAndDatesFrom2050AreGeneralizedTime() throws Exception {
        CertificateAuthority authority = CertificateAuthority.create("kubernetes-ca", KeyAlgorithm.ECDSA_P256, Duration.ofDays(365 * 30), CLOCK);
        KeyPair keys = KeyAlgorithm.ECDSA_P256.generate();

        X509Certificate leaf = authority.sign(keys.getPublic(), CertificateSubject.of("long"), KeyPurpose.CLIENT_AUTH, List.of(), List.of(),
                Duration.ofDays(365 * 40));

        assertThat(authority.certificate().getNotAfter().toInstant()).isAfter(Instant.parse("2050-01-01T00:00:00Z"));
        assertThat(leaf.getNotAfter()).isEqualTo(authority.certificate().getNotAfter());
        validate(leaf, authority.certificate());
    }

    private static void validate(X509Certificate leaf, X509Certificate ca) throws Exception {
        PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        parameters.setRevocationEnabled(false);
        parameters.setDate(Date.from(NOW));
        CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), parameters);
    }
}
