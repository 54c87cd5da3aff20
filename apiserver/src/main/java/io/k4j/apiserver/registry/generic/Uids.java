package io.k4j.apiserver.registry.generic;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * Random (version 4) UUIDs for {@code metadata.uid}, as upstream's, from one in-process DRBG. {@link UUID#randomUUID()}
 * reads the operating system's generator under a global lock on every call, which cost about a tenth of a pod
 * create's CPU under load; a DRBG seeded once is as unpredictable and needs no system call per UID.
 *
 * <p>Thread-safe.
 */
final class Uids {
    private static final SecureRandom RANDOM = drbg();
    /**
     * Random bytes drawn from the DRBG a block at a time: besides the bytes it returns, each draw takes the DRBG's
     * lock and reseeds its state with another hash computation.
     */
    private static final byte[] BLOCK = new byte[4096];
    private static int used = BLOCK.length;

    private Uids() {}

    static String random() {
        byte[] bytes = new byte[16];
        synchronized (BLOCK) {
            if (used == BLOCK.length) {
                RANDOM.nextBytes(BLOCK);
                used = 0;
            }
            System.arraycopy(BLOCK, used, bytes, 0, bytes.length);
            used += bytes.length;
        }
        bytes[6] = (byte) ((bytes[6] & 0x0f) | 0x40); // version 4
        bytes[8] = (byte) ((bytes[8] & 0x3f) | 0x80); // IETF variant
        long mostSignificant = 0;
        long leastSignificant = 0;
        for (int i = 0; i < 8; i++) {
            mostSignificant = (mostSignificant << 8) | (bytes[i] & 0xff);
            leastSignificant = (leastSignificant << 8) | (bytes[i + 8] & 0xff);
        }
        return new UUID(mostSignificant, leastSignificant).toString();
    }

    private static SecureRandom drbg() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException absent) {
            // every JDK since 9 has DRBG; the platform default is correct, only slower
            return new SecureRandom();
        }
    }
}
