package io.k4j.dns.server;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.Message;
import org.xbill.DNS.SimpleResolver;

/**
 * Forwards to a list of upstream resolvers in order, as CoreDNS's {@code forward} plugin with {@code policy
 * sequential}: each over UDP, retried over TCP when the UDP answer comes back truncated, each with a timeout; the
 * next upstream is tried when one fails. Thread-safe.
 */
public final class UpstreamForwarder implements Forwarder {
    private final List<InetSocketAddress> upstreams;
    private final List<SimpleResolver> resolvers = new ArrayList<>();

    public UpstreamForwarder(List<InetSocketAddress> upstreams, Duration timeout) {
        this.upstreams = List.copyOf(requireNonNull(upstreams, "upstreams is null"));
        requireNonNull(timeout, "timeout is null");
        for (InetSocketAddress upstream : this.upstreams) {
            SimpleResolver resolver = new SimpleResolver(upstream);
            resolver.setTimeout(timeout);
            // The TCP retry on a truncated UDP answer is dnsjava's default; say so, since answers depend on it.
            resolver.setIgnoreTruncation(false);
            resolver.setTCP(false);
            resolvers.add(resolver);
        }
    }

    public List<InetSocketAddress> upstreams() {
        return upstreams;
    }

    @Override
    public Message forward(Message query) throws IOException {
        IOException failure = null;
        for (SimpleResolver resolver : resolvers) {
            try {
                return resolver.send(query);
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        throw failure != null ? failure : new IOException("no upstream resolvers configured");
    }
}
