package io.k4j.apiserver.pki;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority that signs client and serving certificates, in the shape kubeadm gives them
 * (CA: {@code CN=kubernetes-ca}, key usage certSign; leaves: digital signature + key encipherment with client or
 * server auth). Thread-safe.
 */
public final class CertificateAuthority {
    /** Backdating covers small clock differences between the machines that verify the certificates. */
    private static final Duration BACKDATE = Duration.ofMinutes(5);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final CertificateAndKey root;
    private final InstantSource clock;

    public CertificateAuthority(CertificateAndKey root, InstantSource clock) {
        this.root = requireNonNull(root, "root is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Creates a new self-signed CA. */
    public static CertificateAuthority create(String commonName, KeyAlgorithm algorithm, Duration validity, InstantSource clock) {
        KeyPair keyPair = algorithm.generate();
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
        Instant now = clock.instant();
        try {
            JcaX509ExtensionUtils extensionUtils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    subject, serialNumber(), Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)), subject, keyPair.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            builder.addExtension(Extension.subjectKeyIdentifier, false, extensionUtils.createSubjectKeyIdentifier(keyPair.getPublic()));
            ContentSigner signer = new JcaContentSignerBuilder(algorithm.signatureAlgorithm()).build(keyPair.getPrivate());
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(builder.build(signer));
            return new CertificateAuthority(new CertificateAndKey(certificate, keyPair.getPrivate()), clock);
        } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot create CA certificate", e);
        }
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
        X509Certificate certificate = sign(keyPair.getPublic(), subject(commonName, organizations), KeyPurposeId.id_kp_clientAuth, List.of(), List.of(), validity);
        return new CertificateAndKey(certificate, keyPair.getPrivate());
    }

    /** Issues a serving certificate for the given DNS names and IP addresses. */
    public CertificateAndKey issueServingCertificate(String commonName, List<String> dnsNames, List<InetAddress> ipAddresses, KeyAlgorithm algorithm, Duration validity) {
        KeyPair keyPair = algorithm.generate();
        X509Certificate certificate = sign(keyPair.getPublic(), subject(commonName, List.of()), KeyPurposeId.id_kp_serverAuth, dnsNames, ipAddresses, validity);
        return new CertificateAndKey(certificate, keyPair.getPrivate());
    }

    /** Signs a certificate for a public key the caller holds the private key of (e.g. from a CSR). */
    public X509Certificate sign(PublicKey publicKey, X500Name subject, KeyPurposeId purpose, List<String> dnsNames, List<InetAddress> ipAddresses, Duration validity) {
        Instant now = clock.instant();
        Instant notAfter = now.plus(validity);
        // A leaf must not outlive its CA; Go refuses such chains.
        Instant caNotAfter = root.certificate().getNotAfter().toInstant();
        if (notAfter.isAfter(caNotAfter)) {
            notAfter = caNotAfter;
        }
        try {
            JcaX509ExtensionUtils extensionUtils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    root.certificate(), serialNumber(), Date.from(now.minus(BACKDATE)), Date.from(notAfter), subject, publicKey);
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            builder.addExtension(Extension.authorityKeyIdentifier, false, extensionUtils.createAuthorityKeyIdentifier(root.certificate()));
            List<GeneralName> names = new ArrayList<>();
            for (String dnsName : dnsNames) {
                names.add(new GeneralName(GeneralName.dNSName, dnsName));
            }
            for (InetAddress address : ipAddresses) {
                names.add(new GeneralName(GeneralName.iPAddress, address.getHostAddress()));
            }
            if (!names.isEmpty()) {
                builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
            }
            ContentSigner signer = new JcaContentSignerBuilder(KeyAlgorithm.of(root.privateKey()).signatureAlgorithm()).build(root.privateKey());
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
        } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot sign certificate for " + subject, e);
        }
    }

    /** A subject with one O per group before the CN, as Go's {@code pkix.Name} lays them out. */
    public static X500Name subject(String commonName, List<String> organizations) {
        X500NameBuilder builder = new X500NameBuilder(BCStyle.INSTANCE);
        for (String organization : organizations) {
            builder.addRDN(BCStyle.O, organization);
        }
        return builder.addRDN(BCStyle.CN, commonName).build();
    }

    private static BigInteger serialNumber() {
        // 127 random bits: positive, unique enough, and within the 20 octets RFC 5280 allows.
        return new BigInteger(127, RANDOM);
    }
}
