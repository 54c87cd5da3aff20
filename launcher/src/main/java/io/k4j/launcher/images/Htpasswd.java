package io.k4j.launcher.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.TreeMap;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * Writes an htpasswd file with bcrypt entries ({@code user:$2y$…}), the only kind docker-registry's htpasswd
 * authentication accepts. Made with BouncyCastle's bcrypt (already on k4j's class path for the PKI) instead of
 * {@code htpasswd -B} from apache2-utils, which most machines lack.
 *
 * <p>Stateless and thread-safe.
 */
public final class Htpasswd {
    private static final int COST = 10;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Htpasswd() {}

    /** Writes {@code users} (name to password) to {@code file}, readable by its owner only. */
    public static Path write(Path file, Map<String, String> users) throws IOException {
        StringBuilder content = new StringBuilder();
        for (Map.Entry<String, String> user : new TreeMap<>(users).entrySet()) {
            if (user.getKey().contains(":") || user.getKey().isBlank()) {
                throw new IllegalArgumentException("not an htpasswd user name: " + user.getKey());
            }
            content.append(user.getKey()).append(':').append(hash(user.getValue())).append('\n');
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        OciLayout.writeAtomically(file.toAbsolutePath(), content.toString().getBytes(StandardCharsets.UTF_8));
        return file;
    }

    static String hash(String password) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return OpenBSDBCrypt.generate("2y", password.toCharArray(), salt, COST);
    }
}
