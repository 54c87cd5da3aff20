package io.k4j.apiserver.pki;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PEM encoding and decoding of certificates and keys in the forms Go's {@code crypto/tls} and {@code kubectl}
 * read: {@code CERTIFICATE}, PKCS#8 {@code PRIVATE KEY} (also reads {@code EC PRIVATE KEY}/{@code RSA PRIVATE KEY})
 * and {@code PUBLIC KEY} (also reads {@code RSA PUBLIC KEY}). Only the JDK is used, so that loading an existing PKI
 * does not load BouncyCastle (see {@link Der}). Encrypted keys are not supported. Stateless and thread-safe.
 */
public final class Pem {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\s*(.*?)-----END \\1-----", Pattern.DOTALL);
    private static final Base64.Encoder ENCODER = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));

    private static final String RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
    private static final String EC_PUBLIC_KEY = "1.2.840.10045.2.1";
    private static final String ED25519 = "1.3.101.112";

    private Pem() {}

    private record Block(String type, byte[] der) {}

    public static String encodeCertificates(List<X509Certificate> certificates) {
        StringBuilder out = new StringBuilder();
        for (X509Certificate certificate : certificates) {
            try {
                out.append(encode("CERTIFICATE", certificate.getEncoded()));
            } catch (CertificateException e) {
                throw new IllegalArgumentException("cannot encode certificate " + certificate.getSubjectX500Principal(), e);
            }
        }
        return out.toString();
    }

    /** PKCS#8, which is how every JDK private key encodes itself. */
    public static String encodePrivateKey(PrivateKey key) {
        if (!"PKCS#8".equals(key.getFormat())) {
            throw new IllegalArgumentException("private key is not PKCS#8-encodable: " + key.getFormat());
        }
        return encode("PRIVATE KEY", key.getEncoded());
    }

    /** X.509 SubjectPublicKeyInfo. */
    public static String encodePublicKey(PublicKey key) {
        if (!"X.509".equals(key.getFormat())) {
            throw new IllegalArgumentException("public key is not X.509-encodable: " + key.getFormat());
        }
        return encode("PUBLIC KEY", key.getEncoded());
    }

    /** All certificates of a PEM bundle, in order. */
    public static List<X509Certificate> decodeCertificates(String pem) {
        List<X509Certificate> certificates = new ArrayList<>();
        for (Block block : blocks(pem)) {
            if (block.type().equals("CERTIFICATE")) {
                certificates.add(certificate(block.der()));
            }
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("no certificate found in PEM data");
        }
        return List.copyOf(certificates);
    }

    public static X509Certificate decodeCertificate(String pem) {
        return decodeCertificates(pem).get(0);
    }

    public static PrivateKey decodePrivateKey(String pem) {
        for (Block block : blocks(pem)) {
            switch (block.type()) {
                case "PRIVATE KEY" -> {
                    return privateKey(block.der());
                }
                case "RSA PRIVATE KEY" -> {
                    return privateKey(pkcs8(algorithmIdentifier(RSA_ENCRYPTION, Der.encode(Der.NULL)), block.der()));
                }
                case "EC PRIVATE KEY" -> {
                    return privateKey(pkcs8(algorithmIdentifier(EC_PUBLIC_KEY, sec1Curve(block.der())), block.der()));
                }
                case "ENCRYPTED PRIVATE KEY" -> throw new IllegalArgumentException("encrypted private keys are not supported");
                default -> {
                    // Another block (e.g. EC PARAMETERS before the key, as openssl writes them): look further.
                }
            }
        }
        throw new IllegalArgumentException("no private key found in PEM data");
    }

    public static PublicKey decodePublicKey(String pem) {
        for (Block block : blocks(pem)) {
            switch (block.type()) {
                case "PUBLIC KEY" -> {
                    return publicKey(block.der());
                }
                case "RSA PUBLIC KEY" -> {
                    return publicKey(Der.encode(Der.SEQUENCE, algorithmIdentifier(RSA_ENCRYPTION, Der.encode(Der.NULL)),
                            bitString(block.der())));
                }
                case "CERTIFICATE" -> {
                    return certificate(block.der()).getPublicKey();
                }
                default -> {
                    // Not a public key: look further.
                }
            }
        }
        throw new IllegalArgumentException("no public key found in PEM data");
    }

    private static String encode(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + ENCODER.encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static List<Block> blocks(String pem) {
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(pem);
        while (matcher.find()) {
            String body = matcher.group(2);
            if (body.contains(":")) {
                // RFC 1421 headers (Proc-Type, DEK-Info) mark an encrypted legacy key.
                throw new IllegalArgumentException("encrypted or annotated PEM blocks are not supported (" + matcher.group(1) + ")");
            }
            try {
                blocks.add(new Block(matcher.group(1), Base64.getMimeDecoder().decode(body)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid base64 in PEM block " + matcher.group(1), e);
            }
        }
        return blocks;
    }

    private static X509Certificate certificate(byte[] der) {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException e) {
            throw new IllegalArgumentException("invalid certificate", e);
        }
    }

    private static PrivateKey privateKey(byte[] pkcs8) {
        String algorithm;
        try {
            // PrivateKeyInfo ::= SEQUENCE { version, AlgorithmIdentifier { algorithm OID, parameters }, privateKey }
            algorithm = keyFactoryAlgorithm(Der.element(pkcs8).children().get(1).children().get(0).objectIdentifier());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("invalid PKCS#8 private key", e);
        }
        try {
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("invalid " + algorithm + " private key", e);
        }
    }

    private static PublicKey publicKey(byte[] subjectPublicKeyInfo) {
        String algorithm;
        try {
            // SubjectPublicKeyInfo ::= SEQUENCE { AlgorithmIdentifier { algorithm OID, parameters }, subjectPublicKey }
            algorithm = keyFactoryAlgorithm(Der.element(subjectPublicKeyInfo).children().get(0).children().get(0).objectIdentifier());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("invalid public key", e);
        }
        try {
            return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(subjectPublicKeyInfo));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("invalid " + algorithm + " public key", e);
        }
    }

    private static String keyFactoryAlgorithm(String objectIdentifier) {
        return switch (objectIdentifier) {
            case RSA_ENCRYPTION -> "RSA";
            case EC_PUBLIC_KEY -> "EC";
            case ED25519 -> "Ed25519";
            default -> throw new IllegalArgumentException("unsupported key algorithm " + objectIdentifier);
        };
    }

    /** The named curve of a SEC 1 {@code ECPrivateKey ::= SEQUENCE { version, privateKey, [0] parameters, [1] publicKey }}. */
    private static byte[] sec1Curve(byte[] sec1) {
        try {
            for (Der.Element child : Der.element(sec1).children()) {
                if (child.tag() == Der.CONTEXT_0) {
                    return child.children().get(0).encoded();
                }
            }
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("invalid EC private key", e);
        }
        throw new IllegalArgumentException("EC private key without named curve parameters");
    }

    private static byte[] algorithmIdentifier(String objectIdentifier, byte[] parameters) {
        return Der.encode(Der.SEQUENCE, Der.objectIdentifier(objectIdentifier), parameters);
    }

    private static byte[] pkcs8(byte[] algorithmIdentifier, byte[] privateKey) {
        return Der.encode(Der.SEQUENCE, Der.encode(Der.INTEGER, new byte[] {0}), algorithmIdentifier, Der.encode(Der.OCTET_STRING, privateKey));
    }

    private static byte[] bitString(byte[] bytes) {
        byte[] content = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, content, 1, bytes.length);
        return Der.encode(0x03, content);
    }
}
