package io.k4j.dns.records;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/** Parses IP literals without ever asking a resolver (InetAddress.getByName would look up anything else). */
public final class IpAddresses {
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]+");

    private IpAddresses() {}

    /** The address {@code text} spells, if it is an IPv4 dotted quad or an IPv6 literal. */
    public static Optional<InetAddress> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        boolean ipv4 = IPV4.matcher(text).matches();
        boolean ipv6 = !ipv4 && text.indexOf(':') >= 0 && IPV6.matcher(text).matches();
        if (!ipv4 && !ipv6) {
            return Optional.empty();
        }
        try {
            InetAddress address = InetAddress.getByName(text);
            // An IPv4-mapped IPv6 literal comes back as IPv4; keep the family the text named.
            if (ipv6 && !(address instanceof Inet6Address)) {
                return Optional.empty();
            }
            return Optional.of(address);
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /**
     * The label an address gets as a DNS name, as CoreDNS names endpoints: dots or colons as dashes, spelled as the API
     * object spelled the address (so {@code fd00::1} is {@code fd00--1}).
     */
    public static String dashed(String text) {
        if (text.indexOf(':') >= 0) {
            String dashed = text.replace(':', '-');
            if (dashed.startsWith("-")) {
                dashed = "0" + dashed;
            }
            return dashed.endsWith("-") ? dashed + "0" : dashed;
        }
        return text.replace('.', '-');
    }
}
