package io.k4j.apiserver.pki;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The few DER (ASN.1 distinguished encoding) operations the PKI needs without BouncyCastle: reading the elements of a
 * structure, and wrapping bytes into a tag-length-value (which {@link CertificateBuilder} writes certificates with). Loading BouncyCastle means verifying its signed jars (and
 * their classes cannot be class-data shared), which costs a start several hundred milliseconds of CPU; reading keys,
 * certificates and subject names is all a restart needs, and the JDK plus this class do that. Stateless and
 * thread-safe.
 */
final class Der {
    static final int BOOLEAN = 0x01;
    static final int INTEGER = 0x02;
    static final int BIT_STRING = 0x03;
    static final int OCTET_STRING = 0x04;
    static final int NULL = 0x05;
    static final int OBJECT_IDENTIFIER = 0x06;
    static final int UTF8_STRING = 0x0c;
    static final int PRINTABLE_STRING = 0x13;
    static final int TELETEX_STRING = 0x14;
    static final int IA5_STRING = 0x16;
    static final int UTC_TIME = 0x17;
    static final int GENERALIZED_TIME = 0x18;
    static final int UNIVERSAL_STRING = 0x1c;
    static final int BMP_STRING = 0x1e;
    static final int SEQUENCE = 0x30;
    static final int SET = 0x31;
    /** {@code [0]} constructed, context-specific: SEC 1's optional curve parameters. */
    static final int CONTEXT_0 = 0xa0;

    private Der() {}

    /**
     * One element: its tag, its content, and the complete encoding (tag and length included).
     */
    record Element(int tag, byte[] content, byte[] encoded) {
        Element {
            requireNonNull(content, "content is null");
            requireNonNull(encoded, "encoded is null");
        }

        /** The elements inside a constructed element (SEQUENCE, SET, [n]). */
        List<Element> children() {
            return Der.elements(content);
        }

        /** The dotted form of an OBJECT IDENTIFIER. */
        String objectIdentifier() {
            if (tag != OBJECT_IDENTIFIER || content.length == 0) {
                throw new IllegalArgumentException("not an object identifier");
            }
            StringBuilder dotted = new StringBuilder();
            long value = 0;
            boolean first = true;
            for (byte octet : content) {
                value = (value << 7) | (octet & 0x7f);
                if ((octet & 0x80) == 0) {
                    if (first) {
                        int arc = (int) Math.min(value / 40, 2);
                        dotted.append(arc).append('.').append(value - 40L * arc);
                        first = false;
                    } else {
                        dotted.append('.').append(value);
                    }
                    value = 0;
                }
            }
            return dotted.toString();
        }

        /** The text of one of the string types X.509 names use. */
        String string() {
            return switch (tag) {
                case UTF8_STRING -> new String(content, StandardCharsets.UTF_8);
                case PRINTABLE_STRING, IA5_STRING, TELETEX_STRING -> new String(content, StandardCharsets.ISO_8859_1);
                case BMP_STRING -> new String(content, StandardCharsets.UTF_16BE);
                case UNIVERSAL_STRING -> new String(content, java.nio.charset.Charset.forName("UTF-32BE"));
                default -> throw new IllegalArgumentException("not a string: tag " + tag);
            };
        }
    }

    /** The consecutive elements in {@code bytes}. */
    static List<Element> elements(byte[] bytes) {
        List<Element> elements = new ArrayList<>();
        int position = 0;
        while (position < bytes.length) {
            int start = position;
            int tag = bytes[position++] & 0xff;
            if ((tag & 0x1f) == 0x1f) {
                throw new IllegalArgumentException("multi-byte DER tags are not supported");
            }
            if (position >= bytes.length) {
                throw new IllegalArgumentException("truncated DER element");
            }
            int length = bytes[position++] & 0xff;
            if (length > 0x7f) {
                int octets = length & 0x7f;
                if (octets == 0 || octets > 3 || position + octets > bytes.length) {
                    throw new IllegalArgumentException("invalid DER length");
                }
                length = 0;
                for (int i = 0; i < octets; i++) {
                    length = (length << 8) | (bytes[position++] & 0xff);
                }
            }
            if (length > bytes.length - position) {
                throw new IllegalArgumentException("truncated DER element");
            }
            byte[] content = Arrays.copyOfRange(bytes, position, position + length);
            position += length;
            elements.add(new Element(tag, content, Arrays.copyOfRange(bytes, start, position)));
        }
        return List.copyOf(elements);
    }

    /** The one element that {@code bytes} must consist of. */
    static Element element(byte[] bytes) {
        List<Element> elements = elements(bytes);
        if (elements.size() != 1) {
            throw new IllegalArgumentException("expected one DER element, found " + elements.size());
        }
        return elements.get(0);
    }

    /** A tag-length-value around {@code content}. */
    static byte[] encode(int tag, byte[]... content) {
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (byte[] part : content) {
            joined.writeBytes(part);
        }
        byte[] body = joined.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 6);
        out.write(tag);
        int length = body.length;
        if (length < 0x80) {
            out.write(length);
        } else if (length < 0x100) {
            out.write(0x81);
            out.write(length);
        } else if (length < 0x10000) {
            out.write(0x82);
            out.write(length >> 8);
            out.write(length);
        } else {
            out.write(0x83);
            out.write(length >> 16);
            out.write(length >> 8);
            out.write(length);
        }
        out.writeBytes(body);
        return out.toByteArray();
    }

    /** The encoding of a dotted OBJECT IDENTIFIER. */
    static byte[] objectIdentifier(String dotted) {
        String[] arcs = dotted.split("\\.");
        if (arcs.length < 2) {
            throw new IllegalArgumentException("invalid object identifier " + dotted);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeArc(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            writeArc(out, Long.parseLong(arcs[i]));
        }
        return encode(OBJECT_IDENTIFIER, out.toByteArray());
    }

    private static void writeArc(ByteArrayOutputStream out, long value) {
        int groups = 1;
        for (long rest = value >>> 7; rest != 0; rest >>>= 7) {
            groups++;
        }
        for (int group = groups - 1; group >= 0; group--) {
            int septet = (int) ((value >>> (7 * group)) & 0x7f);
            out.write(group == 0 ? septet : septet | 0x80);
        }
    }
}
