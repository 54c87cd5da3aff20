package io.k4j.kubelet.server;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A throw-away CA for the kubelet server's tests: a serving context for 127.0.0.1 and client contexts. */
final class TestTls {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] PASSWORD = "test".toCharArray();
    private static final X500Name CA_NAME = new X500Name("CN=kubelet-test-ca");

    private final KeyPair caKeys;
    private final X509Certificate caCertificate;

    TestTls() throws Exception {
        caKeys = keyPair();
        X509v3CertificateBuilder builder = builder(CA_NAME, caKeys);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.digitalSignature));
        caCertificate = sign(builder);
    }

    /** The kubelet's side: a certificate for 127.0.0.1, and client certificates from this CA are verified. */
    SSLContext serverContext() throws Exception {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = builder(new X500Name("CN=system:node:test-node"), keys);
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        return context(keys.getPrivate(), sign(builder));
    }

    /** A client presenting {@code CN=user, O=groups…} (or nothing when user is null), trusting the CA. */
    SSLContext clientContext(String user, List<String> groups) throws Exception {
        if (user == null) {
            return context(null, null);
        }
        KeyPair keys = keyPair();
        StringBuilder subject = new StringBuilder();
        for (String group : groups) {
            subject.append("O=").append(group).append(',');
        }
        subject.append("CN=").append(user);
        X509v3CertificateBuilder builder = builder(new X500Name(subject.toString()), keys);
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
        return context(keys.getPrivate(), sign(builder));
    }

    private SSLContext context(PrivateKey key, X509Certificate certificate) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", caCertificate);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        KeyManagerFactory keyManagers = null;
        if (key != null) {
            KeyStore identity = KeyStore.getInstance("PKCS12");
            identity.load(null, null);
            identity.setKeyEntry("key", key, PASSWORD, new Certificate[] {certificate, caCertificate});
            keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(identity, PASSWORD);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), RANDOM);
        return context;
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    private static X509v3CertificateBuilder builder(X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(CA_NAME, new BigInteger(64, RANDOM), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
    }

    private X509Certificate sign(X509v3CertificateBuilder builder) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
    }
}
