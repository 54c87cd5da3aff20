package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * One file of a configMap, secret, downwardAPI or projected volume: its content, permission bits and owner.
 *
 * @param mode the permission bits, e.g. {@code 0644}
 * @param ownerUid the user that owns the file, or -1 to leave it to the kubelet (upstream's {@code FsUser}, for
 *     service-account tokens of pods that run as one user)
 */
record FileProjection(byte[] data, int mode, long ownerUid) {
    public FileProjection {
        requireNonNull(data, "data is null");
        data = data.clone();
        if (mode < 0 || mode > 0777) {
            throw new IllegalArgumentException("mode out of range: " + Integer.toOctalString(mode));
        }
        if (ownerUid < -1) {
            throw new IllegalArgumentException("ownerUid out of range: " + ownerUid);
        }
    }

    FileProjection(byte[] data, int mode) {
        this(data, mode, -1);
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FileProjection that && mode == that.mode && ownerUid == that.ownerUid && Arrays.equals(data, that.data);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(data) + mode) + Long.hashCode(ownerUid);
    }

    @Override
    public String toString() {
        return "FileProjection[" + data.length + " bytes, mode " + Integer.toOctalString(mode) + ", owner " + ownerUid + "]";
    }
}
