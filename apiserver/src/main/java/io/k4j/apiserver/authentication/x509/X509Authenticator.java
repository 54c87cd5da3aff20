package io.k4j.apiserver.authentication.x509;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.pki.ClusterPki;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Authenticates by TLS client certificate as upstream's x509 authenticator with its common-name mapping: the
 * subject's CN is the user name, each O a group. The TLS layer has verified the chain against the client CA; this
 * class still refuses a certificate outside its validity period or without the client-auth usage, because a
 * long-lived connection can outlive the certificate it was opened with. Thread-safe.
 */
public final class X509Authenticator implements Authenticator {
    /** The extra key upstream uses to identify the credential behind a request. */
    public static final String CREDENTIAL_ID_EXTRA = "authentication.kubernetes.io/credential-id";

    private static final String CLIENT_AUTH_USAGE = "1.3.6.1.5.5.7.3.2";
    private static final String ANY_USAGE = "2.5.29.37.0";

    private static final int MAX_CACHED_IDENTITIES = 1_024;

    private final InstantSource clock;
    /**
     * The user each certificate names. Parsing the subject and hashing the certificate cost more than the rest of a
     * small request, and a client sends the same certificate on every request of its connections, so the answer is
     * kept per certificate; the cache is emptied when it grows past {@value #MAX_CACHED_IDENTITIES} certificates.
     * The validity and usage checks stay per request because they depend on the time.
     */
    private final Map<X509Certificate, Optional<UserInfo>> identities = new ConcurrentHashMap<>();

    public X509Authenticator(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public Optional<UserInfo> authenticate(AuthenticationRequest request) {
        if (request.clientCertificates().isEmpty()) {
            return Optional.empty();
        }
        X509Certificate leaf = request.clientCertificates().get(0);
        Instant now = clock.instant();
        if (now.isBefore(leaf.getNotBefore().toInstant()) || now.isAfter(leaf.getNotAfter().toInstant())) {
            throw StatusException.unauthorized();
        }
        if (!allowsClientAuthentication(leaf)) {
            throw StatusException.unauthorized();
        }
        Optional<UserInfo> known = identities.get(leaf);
        if (known != null) {
            return known;
        }
        if (identities.size() >= MAX_CACHED_IDENTITIES) {
            identities.clear();
        }
        Optional<UserInfo> identity = identity(leaf);
        identities.put(leaf, identity);
        return identity;
    }

    private static Optional<UserInfo> identity(X509Certificate leaf) {
        String name = ClusterPki.commonName(leaf);
        if (name.isEmpty()) {
            // Upstream does not treat a certificate without a CN as a user; other authenticators may still succeed.
            return Optional.empty();
        }
        List<String> groups = new ArrayList<>(ClusterPki.organizations(leaf));
        if (!groups.contains(UserInfo.AUTHENTICATED_GROUP)) {
            groups.add(UserInfo.AUTHENTICATED_GROUP);
        }
        return Optional.of(new UserInfo(name, "", groups, Map.of(CREDENTIAL_ID_EXTRA, List.of("X509SHA256=" + fingerprint(leaf)))));
    }

    private static boolean allowsClientAuthentication(X509Certificate certificate) {
        try {
            List<String> usages = certificate.getExtendedKeyUsage();
            return usages == null || usages.contains(CLIENT_AUTH_USAGE) || usages.contains(ANY_USAGE);
        } catch (CertificateParsingException e) {
            return false;
        }
    }

    private static String fingerprint(X509Certificate certificate) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
