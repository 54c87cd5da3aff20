package io.k4j.apiserver.pki;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
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
 * Builds and signs X.509 certificates with BouncyCastle for {@link CertificateAuthority}. Kept apart from it because
 * merely verifying a class that mentions BouncyCastle types loads them, and BouncyCastle's signed jars are slow to
 * open and cannot be class-data shared. Stateless and thread-safe.
 */
final class CertificateBuilder {
    private static final SecureRandom RANDOM = new SecureRandom();

    private CertificateBuilder() {}

    static X509Certificate selfSigned(KeyPair keyPair, KeyAlgorithm algorithm, String commonName, Instant notBefore, Instant notAfter) {
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
        try {
            JcaX509ExtensionUtils extensionUtils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    subject, serialNumber(), Date.from(notBefore), Date.from(notAfter), subject, keyPair.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            builder.addExtension(Extension.subjectKeyIdentifier, false, extensionUtils.createSubjectKeyIdentifier(keyPair.getPublic()));
            ContentSigner signer = new JcaContentSignerBuilder(algorithm.signatureAlgorithm()).build(keyPair.getPrivate());
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
        } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot create CA certificate", e);
        }
    }

    static X509Certificate leaf(CertificateAndKey root, PublicKey publicKey, X500Name subject, KeyPurposeId purpose, List<String> dnsNames,
            List<InetAddress> ipAddresses, Instant notBefore, Instant notAfter) {
        try {
            JcaX509ExtensionUtils extensionUtils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    root.certificate(), serialNumber(), Date.from(notBefore), Date.from(notAfter), subject, publicKey);
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

    static X500Name subject(String commonName, List<String> organizations) {
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
