package io.k4j.apiserver.registry.core;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** IP address and CIDR checks as Go's {@code net.ParseIP} and {@code net.ParseCIDR} accept them. Stateless and thread-safe. */
public final class Addresses {
    public static final String INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
    public static final String INVALID_CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    private static final Pattern IPV6_CHARACTERS = Pattern.compile("[0-9A-Fa-f:.]+");

    private Addresses() {}

    public static boolean isIpv4(String value) {
        return IPV4.matcher(value).matches();
    }

    public static boolean isIpv6(String value) {
        if (!value.contains(":") || !IPV6_CHARACTERS.matcher(value).matches()) {
            return false;
        }
        try {
            // A literal with a colon is parsed, never looked up.
            return InetAddress.getByName(value).getAddress().length == 16 || value.startsWith("::ffff:");
        } catch (UnknownHostException e) {
            return false;
        }
    }

    public static boolean isIp(String value) {
        return isIpv4(value) || isIpv6(value);
    }

    public static boolean isCidr(String value) {
        int slash = value.indexOf('/');
        if (slash < 0) {
            return false;
        }
        String address = value.substring(0, slash);
        String prefix = value.substring(slash + 1);
        if (!prefix.matches("[0-9]{1,3}")) {
            return false;
        }
        int length = Integer.parseInt(prefix);
        return isIpv4(address) ? length <= 32 : isIpv6(address) && length <= 128;
    }
}
