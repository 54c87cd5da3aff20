package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * One file of a configMap, secret, downwardAPI or projected volume: its content and permission bits.
 *
 * @param mode the permission bits, e.g. {@code 0644}
 */
public record FileProjection(byte[] data, int mode) {
    public FileProjection {
        requireNonNull(data, "data is null");
        data = data.clone();
        if (mode < 0 || mode > 0777) {
            throw new IllegalArgumentException("mode out of range: " + Integer.toOctalString(mode));
        }
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FileProjection that && mode == that.mode && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(data) + mode;
    }

    @Override
    public String toString() {
        return "FileProjection[" + data.length + " bytes, mode " + Integer.toOctalString(mode) + "]";
    }
}
