package io.k4j.apiserver.nodejoin;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The token a node joins the cluster with, in k3s's shape: {@code K4J<sha256 of the cluster CA>::node:<secret>}. The
 * secret is what the server checks; the CA hash lets the joining node verify the server before it trusts anything it
 * says (k3s's {@code K10<hash>::server:<password>}). A bare secret is accepted by the server too, as k3s does, but a
 * node needs the full form to verify the server. Immutable and thread-safe.
 *
 * @param caHash hex SHA-256 of the cluster CA certificate's DER encoding, when the token names it
 * @param secret the shared secret
 */
public record NodeJoinToken(Optional<String> caHash, String secret) {
    private static final String PREFIX = "K4J";
    private static final String SEPARATOR = "::node:";
    private static final int SECRET_BYTES = 24;
    private static final HexFormat HEX = HexFormat.of();

    public NodeJoinToken {
        requireNonNull(caHash, "caHash is null");
        requireNonNull(secret, "secret is null");
        if (secret.isBlank()) {
            throw new IllegalArgumentException("the token's secret is empty");
        }
    }

    /** A new token with a random secret for the cluster whose CA is {@code caCertificate}. */
    public static NodeJoinToken generate(X509Certificate caCertificate) {
        byte[] secret = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(secret);
        return new NodeJoinToken(Optional.of(caHash(caCertificate)), HEX.formatHex(secret));
    }

    /**
     * The token in {@code file}, or a new one written there (readable only by its owner, as k3s's
     * {@code server/node-token}) when it does not exist yet.
     */
    public static NodeJoinToken loadOrCreate(Path file, X509Certificate caCertificate) {
        requireNonNull(file, "file is null");
        requireNonNull(caCertificate, "caCertificate is null");
        try {
            if (Files.exists(file)) {
                NodeJoinToken stored = parse(Files.readString(file));
                NodeJoinToken current = new NodeJoinToken(Optional.of(caHash(caCertificate)), stored.secret());
                // A token file kept from before the CA was replaced still holds the right secret; only the hash is renewed.
                if (!current.equals(stored)) {
                    write(file, current);
                }
                return current;
            }
            NodeJoinToken token = generate(caCertificate);
            write(file, token);
            return token;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write the node join token " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes through a temporary file made owner-only before the secret goes in, then renames it into place. */
    private static void write(Path file, NodeJoinToken token) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        Files.createDirectories(directory);
        Path temporary = Files.createTempFile(directory, ".token", ".tmp");
        try {
            try {
                Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException notPosix) {
                // Nothing to restrict on this file system.
            }
            Files.writeString(temporary, token.format() + "\n", StandardCharsets.US_ASCII);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** Reads a token in either form: {@code K4J<hash>::node:<secret>} or a bare secret. */
    public static NodeJoinToken parse(String text) {
        requireNonNull(text, "text is null");
        String token = text.strip();
        if (token.startsWith(PREFIX) && token.contains(SEPARATOR)) {
            int separator = token.indexOf(SEPARATOR);
            String hash = token.substring(PREFIX.length(), separator);
            if (hash.length() != 64 || !hash.chars().allMatch(HexFormat::isHexDigit)) {
                throw new IllegalArgumentException("the token's CA hash is not a hex SHA-256");
            }
            return new NodeJoinToken(Optional.of(hash.toLowerCase(java.util.Locale.ROOT)), token.substring(separator + SEPARATOR.length()));
        }
        return new NodeJoinToken(Optional.empty(), token);
    }

    /** The token as the server prints it and nodes pass it: the full form when the CA hash is known. */
    public String format() {
        return caHash.map(hash -> PREFIX + hash + SEPARATOR + secret).orElse(secret);
    }

    /**
     * Whether {@code presented} (in either form) carries this token's secret and, when it names a CA, this cluster's CA.
     * Compares in constant time, so the time taken tells nothing about how much of a guess was right.
     */
    public boolean accepts(String presented) {
        NodeJoinToken candidate;
        try {
            candidate = parse(presented);
        } catch (IllegalArgumentException e) {
            return false;
        }
        boolean secretMatches = MessageDigest.isEqual(sha256(candidate.secret()), sha256(secret));
        boolean caMatches = candidate.caHash().isEmpty() || caHash.isEmpty()
                || MessageDigest.isEqual(candidate.caHash().get().getBytes(StandardCharsets.US_ASCII), caHash.get().getBytes(StandardCharsets.US_ASCII));
        return secretMatches & caMatches;
    }

    /** The hex SHA-256 of a CA certificate's DER encoding, as the token names it. */
    public static String caHash(X509Certificate caCertificate) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(caCertificate.getEncoded()));
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("cannot encode the CA certificate", e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /**
     * Hashing both sides first gives equal-length inputs, so that {@link MessageDigest#isEqual} does not return early
     * on a length difference either.
     */
    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    @Override
    public String toString() {
        return "NodeJoinToken[caHash=" + caHash + ", secret=<redacted>]";
    }
}
