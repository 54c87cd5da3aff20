package io.k4j.apiserver.pki;

/** The extended key usage of a leaf certificate: what the key may authenticate as (RFC 5280, 4.2.1.12). */
public enum KeyPurpose {
    SERVER_AUTH("1.3.6.1.5.5.7.3.1"),
    CLIENT_AUTH("1.3.6.1.5.5.7.3.2");

    private final String objectIdentifier;

    KeyPurpose(String objectIdentifier) {
        this.objectIdentifier = objectIdentifier;
    }

    /** The dotted object identifier of the purpose ({@code id-kp-serverAuth}, {@code id-kp-clientAuth}). */
    public String objectIdentifier() {
        return objectIdentifier;
    }
}
