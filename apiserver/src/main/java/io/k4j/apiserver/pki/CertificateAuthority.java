package io.k4j.apiserver.pki;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;

/**
 * A certificate authority that signs client and serving certificates, in the shape kubeadm gives them
 * (CA: {@code CN=kubernetes-ca}, key usage certSign; leaves: digital signature + key encipherment with client or
 * server auth). Thread-safe.
 */
public final class CertificateAuthority {
    /** Backdating covers small clock differences between the machines that verify the certificates. */
    private static final Duration BACKDATE = Duration.ofMinutes(5);

    private final CertificateAndKey root;
    private final InstantSource clock;

    public CertificateAuthority(CertificateAndKey root, InstantSource clock) {
        this.root = requireNonNull(root, "root is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Creates a new self-signed CA. */
    public static CertificateAuthority create(String commonName, KeyAlgorithm algorithm, Duration validity, InstantSource clock) {
        KeyPair keyPair = algorithm.generate();
        X509Certificate certificate = CertificateBuilder.selfSigned(keyPair, commonName, clock.instant().minus(BACKDATE), clock.instant().plus(validity));
        return new CertificateAuthority(new CertificateAndKey(certificate, keyPair.getPrivate()), clock);
    }

    public CertificateAndKey root() {
        return root;
    }

    public X509Certificate certificate() {
        return root.certificate();
    }

    /**
     * Issues a client certificate, as used for authentication: the common name is the user name, each organization a
     * group.
     */
    public CertificateAndKey issueClientCertificate(String commonName, List<String> organizations, KeyAlgorithm algorithm, Duration validity) {
        KeyPair keyPair = algorithm.generate();
        X509Certificate certificate = sign(keyPair.getPublic(), new CertificateSubject(commonName, organizations), KeyPurpose.CLIENT_AUTH, List.of(), List.of(), validity);
        return new CertificateAndKey(certificate, keyPair.getPrivate());
    }

    /** Issues a serving certificate for the given DNS names and IP addresses. */
    public CertificateAndKey issueServingCertificate(String commonName, List<String> dnsNames, List<InetAddress> ipAddresses, KeyAlgorithm algorithm, Duration validity) {
        KeyPair keyPair = algorithm.generate();
        X509Certificate certificate = sign(keyPair.getPublic(), CertificateSubject.of(commonName), KeyPurpose.SERVER_AUTH, dnsNames, ipAddresses, validity);
        return new CertificateAndKey(certificate, keyPair.getPrivate());
    }

    /** Signs a certificate for a public key the caller holds the private key of (e.g. from a CSR). */
    public X509Certificate sign(PublicKey publicKey, CertificateSubject subject, KeyPurpose purpose, List<String> dnsNames, List<InetAddress> ipAddresses, Duration validity) {
        Instant now = clock.instant();
        Instant notAfter = now.plus(validity);
        // A leaf must not outlive its CA; Go refuses such chains.
        Instant caNotAfter = root.certificate().getNotAfter().toInstant();
        if (notAfter.isAfter(caNotAfter)) {
            notAfter = caNotAfter;
        }
        return CertificateBuilder.leaf(root, publicKey, subject, purpose, dnsNames, ipAddresses, now.minus(BACKDATE), notAfter);
    }
}
