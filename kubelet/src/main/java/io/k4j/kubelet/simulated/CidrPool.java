package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Hands out addresses of one CIDR to keys (pod uids, node names), each key holding at most one address, as CNI's
 * host-local IPAM does for a node's podCIDR: the network address (and for IPv4 the broadcast address) is never given
 * out, nor the first {@code reservedLow} addresses after the network (the bridge gateway). Allocation goes round the
 * range from the last address given, so a freed address is not reused at once. Thread-safe.
 */
final class CidrPool {
    /** How many addresses of a huge (IPv6) range the pool tracks; a node never needs more. */
    private static final int MAX_TRACKED = 1 << 20;
    private static final Pattern ADDRESS_CHARACTERS = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final Pattern DOTTED_QUAD = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private final Cidr cidr;
    private final int firstOffset;
    private final int lastOffset;
    private final BitSet used = new BitSet();
    private final Map<String, Integer> offsetsByKey = new HashMap<>();
    private int nextOffset;

    /**
     * A parsed CIDR.
     *
     * @param network the network address as an unsigned integer
     * @param addressBytes 4 for IPv4, 16 for IPv6
     */
    record Cidr(BigInteger network, int prefixLength, int addressBytes) {
        Cidr {
            requireNonNull(network, "network is null");
        }

        int hostBits() {
            return addressBytes * 8 - prefixLength;
        }

        BigInteger size() {
            return BigInteger.ONE.shiftLeft(hostBits());
        }

        boolean contains(BigInteger address) {
            return address.signum() >= 0 && address.shiftRight(hostBits()).equals(network.shiftRight(hostBits()));
        }

        /** The {@code index}-th subnet of {@code subnetPrefixLength} counted down from the top of this range. */
        Cidr subnetFromTop(long index, int subnetPrefixLength) {
            if (subnetPrefixLength < prefixLength || subnetPrefixLength > addressBytes * 8) {
                throw new IllegalArgumentException("cannot cut a /" + subnetPrefixLength + " from " + this);
            }
            BigInteger count = BigInteger.ONE.shiftLeft(subnetPrefixLength - prefixLength);
            if (index < 0 || BigInteger.valueOf(index).compareTo(count) >= 0) {
                throw new IllegalArgumentException(this + " has only " + count + " /" + subnetPrefixLength + " subnets");
            }
            BigInteger subnetSize = BigInteger.ONE.shiftLeft(addressBytes * 8 - subnetPrefixLength);
            BigInteger start = network.add(count.subtract(BigInteger.valueOf(index + 1)).multiply(subnetSize));
            return new Cidr(start, subnetPrefixLength, addressBytes);
        }

        @Override
        public String toString() {
            return format(network, addressBytes) + "/" + prefixLength;
        }
    }

    CidrPool(Cidr cidr, int reservedLow) {
        this.cidr = requireNonNull(cidr, "cidr is null");
        if (reservedLow < 0) {
            throw new IllegalArgumentException("reservedLow must not be negative: " + reservedLow);
        }
        BigInteger size = cidr.size();
        long tracked = size.min(BigInteger.valueOf(MAX_TRACKED)).longValue();
        boolean ipv4Broadcast = cidr.addressBytes() == 4 && size.compareTo(BigInteger.valueOf(tracked)) == 0;
        this.firstOffset = 1 + reservedLow;
        this.lastOffset = (int) tracked - (ipv4Broadcast ? 2 : 1);
        if (cidr.hostBits() < 2 || firstOffset > lastOffset) {
            throw new IllegalArgumentException(cidr + " is too small to hold addresses");
        }
        this.nextOffset = firstOffset;
    }

    static CidrPool of(String cidr, int reservedLow) {
        return new CidrPool(parse(cidr), reservedLow);
    }

    Cidr cidr() {
        return cidr;
    }

    /** The key's address, allocating one when it has none. */
    synchronized String allocate(String key) {
        requireNonNull(key, "key is null");
        Integer existing = offsetsByKey.get(key);
        if (existing != null) {
            return address(existing);
        }
        int capacity = lastOffset - firstOffset + 1;
        for (int tried = 0; tried < capacity; tried++) {
            int offset = nextOffset;
            nextOffset = offset == lastOffset ? firstOffset : offset + 1;
            if (!used.get(offset)) {
                used.set(offset);
                offsetsByKey.put(key, offset);
                return address(offset);
            }
        }
        throw new IllegalStateException("no free address left in " + cidr);
    }

    /**
     * Records that the key already holds this address (e.g. a pod that was running before a restart); false when the
     * address is outside the pool or held by another key.
     */
    synchronized boolean reserve(String key, String address) {
        requireNonNull(key, "key is null");
        Optional<Integer> offset = offsetOf(address);
        if (offset.isEmpty()) {
            return false;
        }
        Integer held = offsetsByKey.get(key);
        if (held != null) {
            return held.equals(offset.get());
        }
        if (used.get(offset.get())) {
            return false;
        }
        used.set(offset.get());
        offsetsByKey.put(key, offset.get());
        return true;
    }

    /** Frees the key's address, if it holds one. */
    synchronized void release(String key) {
        Integer offset = offsetsByKey.remove(key);
        if (offset != null) {
            used.clear(offset);
        }
    }

    synchronized int allocatedCount() {
        return offsetsByKey.size();
    }

    private Optional<Integer> offsetOf(String address) {
        BigInteger value;
        try {
            InetAddress parsed = literal(address);
            if (parsed.getAddress().length != cidr.addressBytes()) {
                return Optional.empty();
            }
            value = new BigInteger(1, parsed.getAddress());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!cidr.contains(value)) {
            return Optional.empty();
        }
        BigInteger offset = value.subtract(cidr.network());
        if (offset.compareTo(BigInteger.valueOf(firstOffset)) < 0 || offset.compareTo(BigInteger.valueOf(lastOffset)) > 0) {
            return Optional.empty();
        }
        return Optional.of(offset.intValue());
    }

    private String address(int offset) {
        return format(cidr.network().add(BigInteger.valueOf(offset)), cidr.addressBytes());
    }

    /**
     * Parses {@code a.b.c.d/n} or an IPv6 CIDR; host bits must be zero, as upstream's {@code ParseCIDRSloppy} users
     * require for podCIDRs.
     */
    static Cidr parse(String text) {
        requireNonNull(text, "text is null");
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("invalid CIDR address: " + text);
        }
        InetAddress address;
        int prefixLength;
        try {
            address = literal(text.substring(0, slash));
            prefixLength = Integer.parseInt(text.substring(slash + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid CIDR address: " + text, e);
        }
        int addressBytes = address.getAddress().length;
        if (prefixLength < 0 || prefixLength > addressBytes * 8) {
            throw new IllegalArgumentException("invalid CIDR address: " + text);
        }
        BigInteger value = new BigInteger(1, address.getAddress());
        int hostBits = addressBytes * 8 - prefixLength;
        BigInteger network = value.shiftRight(hostBits).shiftLeft(hostBits);
        return new Cidr(network, prefixLength, addressBytes);
    }

    /** An IP literal; never a name lookup (Java 21 has no {@code InetAddress.ofLiteral}). */
    static InetAddress literal(String text) {
        if (text.isEmpty() || !ADDRESS_CHARACTERS.matcher(text).matches() || (text.indexOf(':') < 0 && !DOTTED_QUAD.matcher(text).matches())) {
            throw new IllegalArgumentException("not an IP address: " + text);
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + text, e);
        }
    }

    static String format(BigInteger value, int addressBytes) {
        byte[] raw = value.toByteArray();
        byte[] bytes = new byte[addressBytes];
        int copy = Math.min(raw.length, addressBytes);
        System.arraycopy(raw, raw.length - copy, bytes, addressBytes - copy, copy);
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of " + addressBytes + " bytes", e);
        }
    }
}
