package io.k4j.apiserver.registry.core.service;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * An IPv4 service CIDR ({@code --service-cluster-ip-range}) and its usable addresses: every address but the
 * network and broadcast addresses, as upstream. Offset 0 is the network address plus one, which the
 * {@code kubernetes} service gets. Thread-safe (immutable).
 *
 * @param network the network address as an unsigned 32-bit number
 * @param prefixLength at most 30, so that at least two addresses are usable
 */
public record ClusterIpRange(long network, int prefixLength) {
    public static final ClusterIpRange DEFAULT = parse("10.96.0.0/12");

    public ClusterIpRange {
        if (prefixLength < 1 || prefixLength > 30) {
            throw new IllegalArgumentException("a service CIDR needs a prefix length between 1 and 30, got " + prefixLength);
        }
        network &= mask(prefixLength);
    }

    /** Parses {@code a.b.c.d/n}; host bits are cleared. */
    public static ClusterIpRange parse(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("not a CIDR: " + cidr);
        }
        long address = parseIpv4(cidr.substring(0, slash))
                .orElseThrow(() -> new IllegalArgumentException("only IPv4 service CIDRs are supported, got " + cidr));
        int prefix;
        try {
            prefix = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a CIDR: " + cidr, e);
        }
        return new ClusterIpRange(address, prefix);
    }

    /** The number of usable addresses. */
    public int size() {
        return (int) ((1L << (32 - prefixLength)) - 2);
    }

    /** The offset of an address in the usable range, empty when it is outside it (or not IPv4). */
    public OptionalInt offsetOf(String ip) {
        OptionalLong parsed = parseIpv4(ip);
        if (parsed.isEmpty() || (parsed.getAsLong() & mask(prefixLength)) != network) {
            return OptionalInt.empty();
        }
        long offset = parsed.getAsLong() - network - 1;
        return offset >= 0 && offset < size() ? OptionalInt.of((int) offset) : OptionalInt.empty();
    }

    /** The address at an offset of the usable range. */
    public String addressAt(int offset) {
        long address = network + 1 + offset;
        return ((address >> 24) & 0xff) + "." + ((address >> 16) & 0xff) + "." + ((address >> 8) & 0xff) + "." + (address & 0xff);
    }

    /** As upstream prints the range in its messages, e.g. {@code 10.96.0.0/12}. */
    @Override
    public String toString() {
        return ((network >> 24) & 0xff) + "." + ((network >> 16) & 0xff) + "." + ((network >> 8) & 0xff) + "." + (network & 0xff) + "/" + prefixLength;
    }

    /** Dotted-quad IPv4 only (no leading zeros beyond a single 0, as Go's parser since 1.17). */
    static OptionalLong parseIpv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return OptionalLong.empty();
        }
        long address = 0;
        for (String part : parts) {
            if (part.isEmpty() || part.length() > 3 || (part.length() > 1 && part.charAt(0) == '0') || !part.chars().allMatch(Character::isDigit)) {
                return OptionalLong.empty();
            }
            int value = Integer.parseInt(part);
            if (value > 255) {
                return OptionalLong.empty();
            }
            address = (address << 8) | value;
        }
        return OptionalLong.of(address);
    }

    private static long mask(int prefixLength) {
        return (0xffffffffL << (32 - prefixLength)) & 0xffffffffL;
    }
}
