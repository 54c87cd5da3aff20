package io.k4j.launcher;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The host's primary address as upstream picks it for {@code --advertise-address} and a kubelet's node IP: the IPv4
 * address of the interface that carries the default route, else the first non-loopback IPv4 in interface-index order.
 * Never "the first interface the JVM lists": it lists the newest first, and the newest are the CNI bridges of this or
 * another node on the machine (cni0 with 10.42.0.1), an address the apiserver must not dial as the node's.
 *
 * <p>Stateless and thread-safe.
 */
final class HostAddresses {
    private static final Path ROUTES = Path.of("/proc/net/route");
    private static final int ROUTE_UP = 0x1;
    private static final int ROUTE_GATEWAY = 0x2;

    private HostAddresses() {}

    static Optional<InetAddress> primary() {
        try {
            Optional<String> defaultRoute = Files.isReadable(ROUTES) ? defaultRouteInterface(Files.readAllLines(ROUTES)) : Optional.empty();
            if (defaultRoute.isPresent()) {
                NetworkInterface networkInterface = NetworkInterface.getByName(defaultRoute.get());
                Optional<InetAddress> address = networkInterface == null ? Optional.empty() : ipv4Of(networkInterface);
                if (address.isPresent()) {
                    return address;
                }
            }
            List<NetworkInterface> byIndex = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                    .sorted(Comparator.comparingInt(NetworkInterface::getIndex))
                    .toList();
            for (NetworkInterface networkInterface : byIndex) {
                Optional<InetAddress> address = ipv4Of(networkInterface);
                if (address.isPresent()) {
                    return address;
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The interface of the IPv4 default route with the lowest metric in a {@code /proc/net/route} table (header line
     * first; columns Iface, Destination, Gateway, Flags, RefCnt, Use, Metric, Mask, …, hexadecimal where numeric).
     */
    static Optional<String> defaultRouteInterface(List<String> routeTable) {
        String bestInterface = null;
        long bestMetric = Long.MAX_VALUE;
        for (String line : routeTable.subList(Math.min(1, routeTable.size()), routeTable.size())) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length < 8) {
                continue;
            }
            try {
                int flags = Integer.parseInt(columns[3], 16);
                long metric = Long.parseLong(columns[6]);
                boolean isDefault = Long.parseLong(columns[1], 16) == 0 && Long.parseLong(columns[7], 16) == 0;
                if (isDefault && (flags & ROUTE_UP) != 0 && (flags & ROUTE_GATEWAY) != 0 && metric < bestMetric) {
                    bestInterface = columns[0];
                    bestMetric = metric;
                }
            } catch (NumberFormatException e) {
                // not a route line
            }
        }
        return Optional.ofNullable(bestInterface);
    }

    private static Optional<InetAddress> ipv4Of(NetworkInterface networkInterface) throws SocketException {
        if (!networkInterface.isUp() || networkInterface.isLoopback()) {
            return Optional.empty();
        }
        return Collections.list(networkInterface.getInetAddresses()).stream()
                .filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress())
                .findFirst();
    }
}
