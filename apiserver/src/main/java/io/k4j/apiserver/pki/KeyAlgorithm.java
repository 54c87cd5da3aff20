package io.k4j.apiserver.pki;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;

/** The key types the cluster PKI creates; ECDSA P-256 is the default as in kubeadm's {@code encryptionAlgorithm}. */
public enum KeyAlgorithm {
    ECDSA_P256("SHA256withECDSA"),
    RSA_2048("SHA256withRSA");

    private final String signatureAlgorithm;

    KeyAlgorithm(String signatureAlgorithm) {
        this.signatureAlgorithm = signatureAlgorithm;
    }

    /** The JCA name of the signature this key type makes over certificates. */
    public String signatureAlgorithm() {
        return signatureAlgorithm;
    }

    public KeyPair generate() {
        try {
            return switch (this) {
                case ECDSA_P256 -> {
                    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
                    generator.initialize(new ECGenParameterSpec("secp256r1"));
                    yield generator.generateKeyPair();
                }
                case RSA_2048 -> {
                    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
                    generator.initialize(2048);
                    yield generator.generateKeyPair();
                }
            };
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot generate a " + this + " key", e);
        }
    }

    /** The algorithm of an existing key, so that keys loaded from disk sign with the matching signature. */
    public static KeyAlgorithm of(PrivateKey key) {
        return switch (key.getAlgorithm()) {
            case "EC", "ECDSA" -> ECDSA_P256;
            case "RSA" -> RSA_2048;
            default -> throw new IllegalArgumentException("unsupported key algorithm: " + key.getAlgorithm());
        };
    }
}
