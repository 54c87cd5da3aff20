package io.k4j.apiserver.testing;

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
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away CA with a serving certificate for {@code 127.0.0.1}/{@code localhost} and client certificates,
 * made with BouncyCastle, for tests that start the apiserver (the real PKI lives in the security module).
 */
public final class TestCertificates {
    public static final String PASSWORD = "changeit";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final KeyPair caKeys;
    private final X509Certificate caCertificate;

    public TestCertificates() {
        try {
            caKeys = keyPair();
            X500Name caName = new X500Name("CN=k4j-test-ca");
            X509v3CertificateBuilder builder = builder(caName, caName, caKeys);
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
            caCertificate = sign(builder, caKeys.getPrivate());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public X509Certificate caCertificate() {
        return caCertificate;
    }

    /** A key store with a serving certificate for 127.0.0.1 and localhost, signed by the CA. */
    public KeyStore servingKeyStore() {
        try {
            KeyPair keys = keyPair();
            X509v3CertificateBuilder builder = builder(new X500Name("CN=k4j-test-ca"), new X500Name("CN=kube-apiserver"), keys);
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            return keyStore(keys.getPrivate(), sign(builder, caKeys.getPrivate()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A client key and certificate for {@code CN=user, O=group…}, signed by the CA. */
    public record ClientCredentials(PrivateKey key, X509Certificate certificate) {}

    public ClientCredentials clientCredentials(String user, List<String> groups) {
        try {
            KeyPair keys = keyPair();
            StringBuilder subject = new StringBuilder();
            for (String group : groups) {
                subject.append("O=").append(group).append(',');
            }
            subject.append("CN=").append(user);
            X509v3CertificateBuilder builder = builder(new X500Name("CN=k4j-test-ca"), new X500Name(subject.toString()), keys);
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            return new ClientCredentials(keys.getPrivate(), sign(builder, caKeys.getPrivate()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A TLS client context trusting the CA, presenting a client certificate for {@code CN=user, O=group…} when user is non-null. */
    public SSLContext clientContext(String user, List<String> groups) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCertificate);
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyManagerFactory keyManagers = null;
            if (user != null) {
                ClientCredentials credentials = clientCredentials(user, groups);
                keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(keyStore(credentials.key(), credentials.certificate()), PASSWORD.toCharArray());
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), RANDOM);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private KeyStore keyStore(PrivateKey key, X509Certificate certificate) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("key", key, PASSWORD.toCharArray(), new Certificate[] {certificate, caCertificate});
        return store;
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, RANDOM), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key) throws Exception {
        ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(key);
        return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    }
}
