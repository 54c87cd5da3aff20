package io.k4j.apiserver.pki;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds in-memory key stores and {@link SSLContext}s from the cluster PKI for servers (Jetty) and clients. Whether
 * a server asks for client certificates is the server's setting ({@code setWantClientAuth(true)}); the context only
 * decides which CAs it trusts. Stateless and thread-safe.
 */
public final class TlsContexts {
    /** The password of key stores built here; they never leave memory. */
    public static final String KEY_STORE_PASSWORD = "k4j";

    private static final String KEY_ALIAS = "identity";

    private TlsContexts() {}

    /**
     * An in-memory key store holding one identity: its key and certificate chain (leaf first, then {@code chain}).
     * JKS rather than PKCS#12: a PKCS#12 store protects the key with 10,000 rounds of password hashing when it is
     * put in and again when it is taken out, which only costs start-up time for a store that never leaves memory.
     */
    public static KeyStore keyStore(CertificateAndKey identity, List<X509Certificate> chain) {
        try {
            KeyStore store = KeyStore.getInstance("JKS");
            store.load(null, null);
            Certificate[] certificates = new Certificate[chain.size() + 1];
            certificates[0] = identity.certificate();
            for (int i = 0; i < chain.size(); i++) {
                certificates[i + 1] = chain.get(i);
            }
            store.setKeyEntry(KEY_ALIAS, identity.privateKey(), KEY_STORE_PASSWORD.toCharArray(), certificates);
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build key store", e);
        }
    }

    /** A PKCS#12 trust store holding the given CA certificates. */
    public static KeyStore trustStore(List<X509Certificate> authorities) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < authorities.size(); i++) {
                store.setCertificateEntry("ca-" + i, authorities.get(i));
            }
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build trust store", e);
        }
    }

    /** A server context presenting {@code identity} and verifying client certificates against {@code clientAuthorities}. */
    public static SSLContext serverContext(CertificateAndKey identity, List<X509Certificate> clientAuthorities) {
        return context(Optional.of(identity), clientAuthorities);
    }

    /** A client context trusting {@code serverAuthorities} and, when given, presenting a client certificate. */
    public static SSLContext clientContext(List<X509Certificate> serverAuthorities, Optional<CertificateAndKey> identity) {
        return context(identity, serverAuthorities);
    }

    private static SSLContext context(Optional<CertificateAndKey> identity, List<X509Certificate> trusted) {
        try {
            KeyManager[] keyManagers = null;
            if (identity.isPresent()) {
                KeyManagerFactory keyManagerFactory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagerFactory.init(keyStore(identity.get(), List.of()), KEY_STORE_PASSWORD.toCharArray());
                keyManagers = keyManagerFactory.getKeyManagers();
            }
            TrustManagerFactory trustManagerFactory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagerFactory.init(trustStore(trusted));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers, trustManagerFactory.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build TLS context", e);
        }
    }
}
