package io.k4j.dns.server;

import io.k4j.dns.records.IpAddresses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads the upstream resolvers of a node from its {@code resolv.conf}, as CoreDNS's {@code forward . /etc/resolv.conf}. */
public final class ResolvConf {
    private static final int DNS_PORT = 53;

    private ResolvConf() {}

    /** The {@code nameserver} lines of {@code file}, in order, on port 53; empty when the file is missing. */
    public static List<InetSocketAddress> nameServers(Path file) {
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        try {
            return nameServers(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** The {@code nameserver} lines of resolv.conf {@code content}, in order, on port 53. */
    public static List<InetSocketAddress> nameServers(String content) {
        List<InetSocketAddress> servers = new ArrayList<>();
        for (String line : content.split("\n")) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length >= 2 && fields[0].equals("nameserver")) {
                String text = fields[1];
                int scope = text.indexOf('%');
                for (InetAddress address : IpAddresses.parse(scope >= 0 ? text.substring(0, scope) : text).stream().toList()) {
                    servers.add(new InetSocketAddress(address, DNS_PORT));
                }
            }
        }
        return List.copyOf(servers);
    }
}
