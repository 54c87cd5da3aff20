package io.k4j.launcher.images;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * Writes an {@link ImageFilesystem} as a POSIX (ustar) tar archive with PAX headers for long names, the format of
 * an OCI layer. Every entry has owner root, a zero modification time and no user or group names, so the archive
 * depends only on paths, modes and contents: building the same image twice gives the same layer digest.
 *
 * <p>Stateless and thread-safe.
 */
final class TarArchive {
    private static final int BLOCK = 512;

    private TarArchive() {}

    static void write(ImageFilesystem filesystem, OutputStream out) throws IOException {
        for (ImageFilesystem.Entry entry : filesystem.entries()) {
            switch (entry) {
                case ImageFilesystem.Directory directory -> header(out, directory.path() + "/", directory.mode(), 0, '5', "");
                case ImageFilesystem.SymbolicLink link -> header(out, link.path(), link.mode(), 0, '2', link.target());
                case ImageFilesystem.RegularFile file -> writeFile(out, file);
            }
        }
        out.write(new byte[BLOCK * 2]);
    }

    private static void writeFile(OutputStream out, ImageFilesystem.RegularFile file) throws IOException {
        switch (file.content()) {
            case ImageFilesystem.Content.Bytes bytes -> {
                byte[] data = bytes.bytes();
                header(out, file.path(), file.mode(), data.length, '0', "");
                out.write(data);
                pad(out, data.length);
            }
            case ImageFilesystem.Content.HostFile hostFile -> {
                long size = Files.size(hostFile.file());
                header(out, file.path(), file.mode(), size, '0', "");
                long copied;
                try (InputStream in = Files.newInputStream(hostFile.file())) {
                    copied = in.transferTo(out);
                }
                if (copied != size) {
                    throw new IOException(hostFile.file() + " changed while it was archived");
                }
                pad(out, size);
            }
        }
    }

    private static void header(OutputStream out, String name, int mode, long size, char type, String linkName)
            throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        byte[] linkBytes = linkName.getBytes(StandardCharsets.UTF_8);
        String prefix = "";
        String shortName = name;
        if (nameBytes.length > 100 || linkBytes.length > 100) {
            StringBuilder records = new StringBuilder();
            if (nameBytes.length > 100) {
                records.append(paxRecord("path", name));
                shortName = truncate(name);
            }
            if (linkBytes.length > 100) {
                records.append(paxRecord("linkpath", linkName));
                linkName = truncate(linkName);
            }
            byte[] pax = records.toString().getBytes(StandardCharsets.UTF_8);
            // The extended header's own name is informational (readers take the path from the records).
            String lastName = name.substring(name.lastIndexOf('/', name.length() - 2) + 1);
            lastName = lastName.substring(Math.max(0, lastName.length() - 80));
            out.write(block("PaxHeaders/" + lastName, "", 0644, pax.length, 'x', ""));
            out.write(pax);
            pad(out, pax.length);
        }
        out.write(block(shortName, prefix, mode, size, type, linkName));
    }

    private static byte[] block(String name, String prefix, int mode, long size, char type, String linkName) {
        byte[] header = new byte[BLOCK];
        put(header, 0, 100, name.getBytes(StandardCharsets.UTF_8));
        octal(header, 100, 8, mode & 07777);
        octal(header, 108, 8, 0);
        octal(header, 116, 8, 0);
        octal(header, 124, 12, size);
        octal(header, 136, 12, 0);
        for (int i = 148; i < 156; i++) {
            header[i] = ' ';
        }
        header[156] = (byte) type;
        put(header, 157, 100, linkName.getBytes(StandardCharsets.UTF_8));
        put(header, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
        put(header, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
        octal(header, 329, 8, 0);
        octal(header, 337, 8, 0);
        put(header, 345, 155, prefix.getBytes(StandardCharsets.UTF_8));
        long checksum = 0;
        for (byte b : header) {
            checksum += b & 0xff;
        }
        byte[] digits = String.format("%06o", checksum).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(digits, 0, header, 148, 6);
        header[154] = 0;
        header[155] = ' ';
        return header;
    }

    /** A PAX record: its decimal length counts itself, so the length's own digits are found by iteration. */
    private static String paxRecord(String key, String value) {
        int payload = (" " + key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8).length;
        int length = payload + String.valueOf(payload).length();
        if (String.valueOf(length).length() != String.valueOf(payload).length()) {
            length = payload + String.valueOf(length).length();
        }
        return length + " " + key + "=" + value + "\n";
    }

    /** The last 99 bytes' worth of a long name: what a reader without PAX support sees. */
    private static String truncate(String name) {
        String truncated = name;
        while (truncated.getBytes(StandardCharsets.UTF_8).length > 99) {
            truncated = truncated.substring(1);
        }
        return truncated;
    }

    private static void put(byte[] header, int offset, int length, byte[] value) {
        if (value.length > length) {
            throw new IllegalArgumentException("tar header field too long: " + new String(value, StandardCharsets.UTF_8));
        }
        System.arraycopy(value, 0, header, offset, value.length);
    }

    private static void octal(byte[] header, int offset, int length, long value) {
        String digits = Long.toOctalString(value);
        if (digits.length() > length - 1) {
            throw new IllegalArgumentException("value " + value + " does not fit a tar header field");
        }
        String padded = "0".repeat(length - 1 - digits.length()) + digits;
        put(header, offset, length - 1, padded.getBytes(StandardCharsets.US_ASCII));
        header[offset + length - 1] = 0;
    }

    private static void pad(OutputStream out, long size) throws IOException {
        int remainder = (int) (size % BLOCK);
        if (remainder != 0) {
            out.write(new byte[BLOCK - remainder]);
        }
    }
}
