package io.k4j.api.validation;

/**
 * A literal IP address parser with the rules of upstream's {@code netutils.ParseIPSloppy} (Go 1.16's parser,
 * which accepts leading zeros in IPv4 parts). {@link java.net.InetAddress} is not used because it may
 * resolve host names and accepts forms upstream rejects (zones, shortened IPv4). Stateless and thread-safe.
 */
final class IpAddresses {
    private static final int IPV4_LENGTH = 4;
    private static final int IPV6_LENGTH = 16;
    private static final int BIG = 0xFFFFFF;

    private IpAddresses() {}

    /** The 16-byte form of an address (IPv4 as IPv4-mapped IPv6), or {@code null} when it is not a valid literal. */
    static byte[] parse(String text) {
        for (int i = 0; i < text.length(); i++) {
            switch (text.charAt(i)) {
                case '.':
                    return parseIpv4(text);
                case ':':
                    return parseIpv6(text);
                default:
                    break;
            }
        }
        return null;
    }

    /** Whether a 16-byte address is IPv4 (upstream's {@code To4() != nil}: IPv4-mapped form). */
    static boolean isIpv4(byte[] address) {
        for (int i = 0; i < 10; i++) {
            if (address[i] != 0) {
                return false;
            }
        }
        return address[10] == (byte) 0xff && address[11] == (byte) 0xff;
    }

    /** The prefix length of a CIDR such as {@code 10.0.0.0/8}, or -1 when it is not valid. */
    static int parseCidrPrefixLength(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            return -1;
        }
        String address = text.substring(0, slash);
        String mask = text.substring(slash + 1);
        int bits = IPV6_LENGTH * 8;
        byte[] parsed = parseIpv4(address);
        if (parsed != null) {
            bits = IPV4_LENGTH * 8;
        } else {
            parsed = parseIpv6(address);
        }
        long[] number = decimal(mask, 0);
        if (parsed == null || number == null || number[1] != mask.length() || number[0] > bits) {
            return -1;
        }
        return (int) number[0];
    }

    private static byte[] parseIpv4(String text) {
        byte[] address = new byte[IPV6_LENGTH];
        address[10] = (byte) 0xff;
        address[11] = (byte) 0xff;
        if (!parseIpv4Into(text, 0, address, 12)) {
            return null;
        }
        return address;
    }

    private static boolean parseIpv4Into(String text, int start, byte[] address, int offset) {
        int position = start;
        for (int part = 0; part < IPV4_LENGTH; part++) {
            if (position >= text.length()) {
                return false;
            }
            if (part > 0) {
                if (text.charAt(position) != '.') {
                    return false;
                }
                position++;
            }
            long[] number = decimal(text, position);
            if (number == null || number[0] > 0xFF) {
                return false;
            }
            position = (int) number[1];
            address[offset + part] = (byte) number[0];
        }
        return position == text.length();
    }

    private static byte[] parseIpv6(String text) {
        byte[] address = new byte[IPV6_LENGTH];
        int ellipsis = -1;
        int position = 0;
        if (text.startsWith("::")) {
            ellipsis = 0;
            position = 2;
            if (position == text.length()) {
                return address;
            }
        }
        int index = 0;
        while (index < IPV6_LENGTH) {
            long[] number = hexadecimal(text, position);
            if (number == null || number[0] > 0xFFFF) {
                return null;
            }
            int end = (int) number[1];
            if (end < text.length() && text.charAt(end) == '.') {
                // An IPv4 address in the last 32 bits, e.g. ::ffff:1.2.3.4.
                if (ellipsis < 0 && index != IPV6_LENGTH - IPV4_LENGTH) {
                    return null;
                }
                if (index + IPV4_LENGTH > IPV6_LENGTH) {
                    return null;
                }
                if (!parseIpv4Into(text, position, address, index)) {
                    return null;
                }
                index += IPV4_LENGTH;
                position = text.length();
                break;
            }
            address[index] = (byte) (number[0] >> 8);
            address[index + 1] = (byte) number[0];
            index += 2;
            position = end;
            if (position == text.length()) {
                break;
            }
            if (text.charAt(position) != ':' || position + 1 == text.length()) {
                return null;
            }
            position++;
            if (text.charAt(position) == ':') {
                if (ellipsis >= 0) {
                    return null;
                }
                ellipsis = index;
                position++;
                if (position == text.length()) {
                    break;
                }
            }
        }
        if (position != text.length()) {
            return null;
        }
        if (index < IPV6_LENGTH) {
            if (ellipsis < 0) {
                return null;
            }
            int count = IPV6_LENGTH - index;
            for (int source = index - 1; source >= ellipsis; source--) {
                address[source + count] = address[source];
            }
            for (int zero = ellipsis + count - 1; zero >= ellipsis; zero--) {
                address[zero] = 0;
            }
        } else if (ellipsis >= 0) {
            // An ellipsis must stand for at least one group.
            return null;
        }
        return address;
    }

    /** {value, end} of the decimal number at start, or null when there is none or it is too large. */
    private static long[] decimal(String text, int start) {
        long value = 0;
        int position = start;
        while (position < text.length() && text.charAt(position) >= '0' && text.charAt(position) <= '9') {
            value = value * 10 + (text.charAt(position) - '0');
            if (value >= BIG) {
                return null;
            }
            position++;
        }
        return position == start ? null : new long[] {value, position};
    }

    private static long[] hexadecimal(String text, int start) {
        long value = 0;
        int position = start;
        while (position < text.length() && Character.digit(text.charAt(position), 16) >= 0 && text.charAt(position) < 128) {
            value = value * 16 + Character.digit(text.charAt(position), 16);
            if (value >= BIG) {
                return null;
            }
            position++;
        }
        return position == start ? null : new long[] {value, position};
    }
}
