package io.k4j.apiserver.pki;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds and signs X.509 v3 certificates (RFC 5280) for {@link CertificateAuthority}, encoding them with {@link Der}
 * and signing with the JDK: BouncyCastle's signed jars cost a first start several hundred milliseconds of CPU to open
 * and verify, and cannot be class-data shared. The shapes are kubeadm's: a CA with basic constraints CA:true and key
 * usage certSign; leaves with digital signature + key encipherment, one extended key usage, the CA's key identifier,
 * and the subject alternative names of a serving certificate. Stateless and thread-safe.
 */
final class CertificateBuilder {
    private static final SecureRandom RANDOM = new SecureRandom();
    /** A DER BOOLEAN true (read only: {@link Der#encode} copies its parts). */
    private static final byte[] TRUE = Der.encode(Der.BOOLEAN, new byte[] {(byte) 0xff});
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String ORGANIZATION = "2.5.4.10";
    private static final String SUBJECT_KEY_IDENTIFIER = "2.5.29.14";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String SUBJECT_ALTERNATIVE_NAME = "2.5.29.17";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String AUTHORITY_KEY_IDENTIFIER = "2.5.29.35";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    /** {@code [3]} constructed: the extensions of a TBSCertificate. */
    private static final int CONTEXT_3 = 0xa3;
    /** {@code [0]} primitive: AuthorityKeyIdentifier's keyIdentifier. */
    private static final int KEY_IDENTIFIER = 0x80;
    /** {@code [2]} and {@code [7]} primitive: the dNSName and iPAddress choices of a GeneralName. */
    private static final int DNS_NAME = 0x82;
    private static final int IP_ADDRESS = 0x87;
    // KeyUsage bits (RFC 5280, 4.2.1.3), numbered from the most significant bit of the first octet.
    private static final int DIGITAL_SIGNATURE = 0;
    private static final int KEY_ENCIPHERMENT = 2;
    private static final int KEY_CERT_SIGN = 5;
    private static final DateTimeFormatter UTC_TIME_FORMAT = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");
    private static final DateTimeFormatter GENERALIZED_TIME_FORMAT = DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'");

    private CertificateBuilder() {}

    static X509Certificate selfSigned(KeyPair keyPair, String commonName, Instant notBefore, Instant notAfter) {
        byte[] name = name(CertificateSubject.of(commonName));
        List<byte[]> extensions = List.of(
                extension(BASIC_CONSTRAINTS, true, Der.encode(Der.SEQUENCE, TRUE)),
                extension(KEY_USAGE, true, keyUsage(DIGITAL_SIGNATURE, KEY_ENCIPHERMENT, KEY_CERT_SIGN)),
                extension(SUBJECT_KEY_IDENTIFIER, false, Der.encode(Der.OCTET_STRING, keyIdentifier(keyPair.getPublic()))));
        return sign(name, name, keyPair.getPublic(), notBefore, notAfter, extensions, keyPair.getPrivate(), "cannot create the CA certificate");
    }

    static X509Certificate leaf(CertificateAndKey root, PublicKey publicKey, CertificateSubject subject, KeyPurpose purpose, List<String> dnsNames,
            List<InetAddress> ipAddresses, Instant notBefore, Instant notAfter) {
        List<byte[]> extensions = new ArrayList<>(List.of(
                extension(BASIC_CONSTRAINTS, true, Der.encode(Der.SEQUENCE)),
                extension(KEY_USAGE, true, keyUsage(DIGITAL_SIGNATURE, KEY_ENCIPHERMENT)),
                extension(EXTENDED_KEY_USAGE, false, Der.encode(Der.SEQUENCE, Der.objectIdentifier(purpose.objectIdentifier()))),
                extension(AUTHORITY_KEY_IDENTIFIER, false, Der.encode(Der.SEQUENCE, Der.encode(KEY_IDENTIFIER,
                        ClusterPki.subjectKeyIdentifier(root.certificate()).orElseGet(() -> keyIdentifier(root.certificate().getPublicKey())))))));
        List<byte[]> names = new ArrayList<>();
        for (String dnsName : dnsNames) {
            names.add(Der.encode(DNS_NAME, dnsName.getBytes(StandardCharsets.US_ASCII)));
        }
        for (InetAddress address : ipAddresses) {
            names.add(Der.encode(IP_ADDRESS, address.getAddress()));
        }
        if (!names.isEmpty()) {
            extensions.add(extension(SUBJECT_ALTERNATIVE_NAME, false, Der.encode(Der.SEQUENCE, names.toArray(byte[][]::new))));
        }
        // The issuer is the CA's subject byte for byte: verifiers (Go's among them) chain by comparing the encodings.
        return sign(root.certificate().getSubjectX500Principal().getEncoded(), name(subject), publicKey, notBefore, notAfter, extensions,
                root.privateKey(), "cannot sign a certificate for " + subject.commonName());
    }

    private static X509Certificate sign(byte[] issuer, byte[] subject, PublicKey publicKey, Instant notBefore, Instant notAfter,
            List<byte[]> extensions, PrivateKey signingKey, String failure) {
        KeyAlgorithm algorithm = KeyAlgorithm.of(signingKey);
        byte[] signatureAlgorithm = signatureAlgorithmIdentifier(algorithm);
        byte[] certificateInfo = Der.encode(Der.SEQUENCE,
                Der.encode(Der.CONTEXT_0, Der.encode(Der.INTEGER, new byte[] {2})),
                Der.encode(Der.INTEGER, serialNumber().toByteArray()),
                signatureAlgorithm,
                issuer,
                Der.encode(Der.SEQUENCE, time(notBefore), time(notAfter)),
                subject,
                publicKey.getEncoded(),
                Der.encode(CONTEXT_3, Der.encode(Der.SEQUENCE, extensions.toArray(byte[][]::new))));
        try {
            Signature signature = Signature.getInstance(algorithm.signatureAlgorithm());
            signature.initSign(signingKey);
            signature.update(certificateInfo);
            byte[] certificate = Der.encode(Der.SEQUENCE, certificateInfo, signatureAlgorithm, bitString(signature.sign()));
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(certificate));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(failure, e);
        }
    }

    /** A Name of one RDN per organization and then the common name, as Go's {@code pkix.Name} lays them out. */
    static byte[] name(CertificateSubject subject) {
        List<byte[]> relativeNames = new ArrayList<>();
        for (String organization : subject.organizations()) {
            relativeNames.add(attribute(ORGANIZATION, organization));
        }
        relativeNames.add(attribute(COMMON_NAME, subject.commonName()));
        return Der.encode(Der.SEQUENCE, relativeNames.toArray(byte[][]::new));
    }

    private static byte[] attribute(String type, String value) {
        return Der.encode(Der.SET, Der.encode(Der.SEQUENCE, Der.objectIdentifier(type),
                Der.encode(Der.UTF8_STRING, value.getBytes(StandardCharsets.UTF_8))));
    }

    private static byte[] extension(String type, boolean critical, byte[] value) {
        return critical
                ? Der.encode(Der.SEQUENCE, Der.objectIdentifier(type), TRUE, Der.encode(Der.OCTET_STRING, value))
                : Der.encode(Der.SEQUENCE, Der.objectIdentifier(type), Der.encode(Der.OCTET_STRING, value));
    }

    /** A KeyUsage named bit string: DER drops trailing zero bits and counts them as unused. */
    private static byte[] keyUsage(int... bits) {
        int mask = 0;
        int highest = 0;
        for (int bit : bits) {
            mask |= 0x80 >> bit;
            highest = Math.max(highest, bit);
        }
        return Der.encode(Der.BIT_STRING, new byte[] {(byte) (7 - highest), (byte) mask});
    }

    private static byte[] bitString(byte[] bytes) {
        byte[] content = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, content, 1, bytes.length);
        return Der.encode(Der.BIT_STRING, content);
    }

    /** RFC 5280's key identifier method 1: the SHA-1 of the subjectPublicKey bits. */
    static byte[] keyIdentifier(PublicKey publicKey) {
        // SubjectPublicKeyInfo ::= SEQUENCE { algorithm, subjectPublicKey BIT STRING }: hash the bits after the
        // unused-bits octet.
        byte[] bits = Der.element(publicKey.getEncoded()).children().get(1).content();
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(bits, 1, bits.length - 1);
            return sha1.digest();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-1 is always available", e);
        }
    }

    private static byte[] signatureAlgorithmIdentifier(KeyAlgorithm algorithm) {
        return switch (algorithm) {
            // ecdsa-with-SHA256 has no parameters; sha256WithRSAEncryption has NULL ones (RFC 5758, RFC 4055).
            case ECDSA_P256 -> Der.encode(Der.SEQUENCE, Der.objectIdentifier("1.2.840.10045.4.3.2"));
            case RSA_2048 -> Der.encode(Der.SEQUENCE, Der.objectIdentifier("1.2.840.113549.1.1.11"), Der.encode(Der.NULL));
        };
    }

    /** UTCTime through 2049, GeneralizedTime from 2050, in whole seconds (RFC 5280, 4.1.2.5). */
    private static byte[] time(Instant instant) {
        ZonedDateTime utc = instant.truncatedTo(ChronoUnit.SECONDS).atZone(ZoneOffset.UTC);
        return utc.getYear() < 2050
                ? Der.encode(Der.UTC_TIME, UTC_TIME_FORMAT.format(utc).getBytes(StandardCharsets.US_ASCII))
                : Der.encode(Der.GENERALIZED_TIME, GENERALIZED_TIME_FORMAT.format(utc).getBytes(StandardCharsets.US_ASCII));
    }

    private static BigInteger serialNumber() {
        // 127 random bits: positive, unique enough, and within the 20 octets RFC 5280 allows.
        return new BigInteger(127, RANDOM);
    }
}
