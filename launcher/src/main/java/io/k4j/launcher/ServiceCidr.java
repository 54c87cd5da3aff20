package io.k4j.launcher;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** The service CIDR; its first address belongs to the {@code kubernetes} service, as upstream reserves it. */
record ServiceCidr(InetAddress network, int prefixLength) {
    static ServiceCidr parse(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("--service-cluster-ip-range must be a CIDR like 10.96.0.0/12, got " + cidr);
        }
        try {
            InetAddress network = InetAddress.getByName(cidr.substring(0, slash));
            int prefixLength = Integer.parseInt(cidr.substring(slash + 1));
            int bits = network.getAddress().length * 8;
            if (prefixLength < 0 || prefixLength > bits - 2) {
                throw new IllegalArgumentException("--service-cluster-ip-range " + cidr + " leaves no room for service addresses");
            }
            return new ServiceCidr(network, prefixLength);
        } catch (UnknownHostException | NumberFormatException e) {
            throw new IllegalArgumentException("--service-cluster-ip-range must be a CIDR like 10.96.0.0/12, got " + cidr, e);
        }
    }

    /** The network address plus one. */
    InetAddress firstAddress() {
        return address(1);
    }

    /** The network address plus {@code offset}: 10 is the cluster DNS service's, as kubeadm picks it. */
    InetAddress address(int offset) {
        byte[] bytes = network.getAddress();
        int bits = bytes.length * 8;
        BigInteger mask = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE).shiftRight(prefixLength).not();
        BigInteger first = new BigInteger(1, bytes).and(mask).add(BigInteger.valueOf(offset));
        byte[] raw = first.toByteArray();
        byte[] address = new byte[bytes.length];
        System.arraycopy(raw, Math.max(0, raw.length - address.length), address, Math.max(0, address.length - raw.length), Math.min(raw.length, address.length));
        try {
            return InetAddress.getByAddress(address);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
