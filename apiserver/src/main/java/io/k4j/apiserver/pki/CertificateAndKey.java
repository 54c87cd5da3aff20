package io.k4j.apiserver.pki;

import static java.util.Objects.requireNonNull;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A certificate and the private key it certifies.
 *
 * @param certificate the leaf certificate
 * @param privateKey its key
 */
public record CertificateAndKey(X509Certificate certificate, PrivateKey privateKey) {
    public CertificateAndKey {
        requireNonNull(certificate, "certificate is null");
        requireNonNull(privateKey, "privateKey is null");
    }

    public String certificatePem() {
        return Pem.encodeCertificates(List.of(certificate));
    }

    public String privateKeyPem() {
        return Pem.encodePrivateKey(privateKey);
    }
}
