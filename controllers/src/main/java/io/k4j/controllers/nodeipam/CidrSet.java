package io.k4j.controllers.nodeipam;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.BitSet;
import java.util.Optional;

/**
 * The node CIDRs of one cluster CIDR, as upstream's {@code cidrset}: {@code 10.42.0.0/16} with mask size 24 holds 256
 * node CIDRs. Allocation continues after the last one handed out, so a released CIDR is not reused at once.
 * Thread-safe.
 */
final class CidrSet {
    /** Upstream refuses more than 2^16 node CIDRs per cluster CIDR to bound this set's memory. */
    private static final int MAX_PREFIX_DIFFERENCE = 16;

    private final BigInteger base;
    private final int addressBits;
    private final int clusterPrefix;
    private final int nodePrefix;
    private final int capacity;
    private final BitSet used;
    private int next;

    private CidrSet(BigInteger base, int addressBits, int clusterPrefix, int nodePrefix) {
        this.base = base;
        this.addressBits = addressBits;
        this.clusterPrefix = clusterPrefix;
        this.nodePrefix = nodePrefix;
        this.capacity = 1 << (nodePrefix - clusterPrefix);
        this.used = new BitSet(capacity);
    }

    /**
     * @param clusterCidr e.g. {@code 10.42.0.0/16}
     * @param nodeMaskSize e.g. 24
     * @throws IllegalArgumentException when the CIDR is malformed or the mask does not fit, with a message naming both
     */
    static CidrSet parse(String clusterCidr, int nodeMaskSize) {
        int slash = clusterCidr.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("cluster CIDR " + clusterCidr + " has no prefix length");
        }
        InetAddress address;
        int prefix;
        try {
            address = literal(clusterCidr.substring(0, slash));
            prefix = Integer.parseInt(clusterCidr.substring(slash + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cluster CIDR " + clusterCidr + " is not a valid CIDR");
        }
        int bits = address.getAddress().length * 8;
        if (prefix < 0 || prefix > bits) {
            throw new IllegalArgumentException("cluster CIDR " + clusterCidr + " has an invalid prefix length");
        }
        if (nodeMaskSize < prefix || nodeMaskSize > bits) {
            throw new IllegalArgumentException("node CIDR mask size " + nodeMaskSize + " does not fit in cluster CIDR " + clusterCidr);
        }
        if (nodeMaskSize - prefix > MAX_PREFIX_DIFFERENCE) {
            throw new IllegalArgumentException("cluster CIDR " + clusterCidr + " holds more than 2^" + MAX_PREFIX_DIFFERENCE
                    + " node CIDRs of size /" + nodeMaskSize + "; use a larger node mask size");
        }
        BigInteger value = new BigInteger(1, address.getAddress());
        BigInteger mask = BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE).not();
        return new CidrSet(value.and(mask), bits, prefix, nodeMaskSize);
    }

    /** Parses an IP literal without ever resolving a name (InetAddress.getByName would for anything else). */
    private static InetAddress literal(String text) {
        boolean ipv4 = text.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean ipv6 = text.contains(":") && text.matches("[0-9a-fA-F:.]+");
        if (!ipv4 && !ipv6) {
            throw new IllegalArgumentException("not an IP address: " + text);
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + text, e);
        }
    }

    int capacity() {
        return capacity;
    }

    /** The next free node CIDR, or empty when all are taken. */
    synchronized Optional<String> allocateNext() {
        for (int tried = 0; tried < capacity; tried++) {
            int candidate = (next + tried) % capacity;
            if (!used.get(candidate)) {
                used.set(candidate);
                next = (candidate + 1) % capacity;
                return Optional.of(format(candidate));
            }
        }
        return Optional.empty();
    }

    /** Marks an existing node's CIDR as taken; false when it is not one of this set's CIDRs. */
    synchronized boolean occupy(String cidr) {
        Optional<Integer> index = indexOf(cidr);
        index.ifPresent(used::set);
        return index.isPresent();
    }

    synchronized void release(String cidr) {
        indexOf(cidr).ifPresent(used::clear);
    }

    synchronized int allocated() {
        return used.cardinality();
    }

    private Optional<Integer> indexOf(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        try {
            byte[] bytes = literal(cidr.substring(0, slash)).getAddress();
            if (bytes.length * 8 != addressBits || Integer.parseInt(cidr.substring(slash + 1)) != nodePrefix) {
                return Optional.empty();
            }
            BigInteger offset = new BigInteger(1, bytes).subtract(base);
            if (offset.signum() < 0) {
                return Optional.empty();
            }
            BigInteger index = offset.shiftRight(addressBits - nodePrefix);
            if (index.compareTo(BigInteger.valueOf(capacity)) >= 0 || !index.shiftLeft(addressBits - nodePrefix).equals(offset)) {
                return Optional.empty();
            }
            return Optional.of(index.intValueExact());
        } catch (IllegalArgumentException | ArithmeticException e) {
            return Optional.empty();
        }
    }

    private String format(int index) {
        BigInteger value = base.add(BigInteger.valueOf(index).shiftLeft(addressBits - nodePrefix));
        byte[] raw = value.toByteArray();
        byte[] bytes = new byte[addressBits / 8];
        // BigInteger may add a sign byte or drop leading zero bytes; right-align into the address width.
        int copy = Math.min(raw.length, bytes.length);
        System.arraycopy(raw, raw.length - copy, bytes, bytes.length - copy, copy);
        try {
            return InetAddress.getByAddress(bytes).getHostAddress() + "/" + nodePrefix;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("address of wrong length", e);
        }
    }

    @Override
    public String toString() {
        return format(0).replaceAll("/\\d+$", "") + "/" + clusterPrefix + " in /" + nodePrefix + " blocks";
    }
}
