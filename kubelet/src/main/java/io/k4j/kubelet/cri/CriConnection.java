package io.k4j.kubelet.cri;

import static java.util.Objects.requireNonNull;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC channel to a container runtime's CRI endpoint (a unix socket) with the runtime and image services over
 * it. The channel connects lazily and reconnects by itself after the runtime restarted, so one connection lives as
 * long as the kubelet. Thread-safe.
 */
public final class CriConnection implements AutoCloseable {
    /** Upstream's maximum CRI message size (large ListContainers answers on busy nodes). */
    private static final int MAX_MESSAGE_SIZE = 16 * 1024 * 1024;

    private final Path socket;
    private final EventLoopGroup eventLoopGroup;
    private final ManagedChannel channel;
    private final RemoteRuntimeService runtimeService;
    private final RemoteImageService imageService;

    private CriConnection(Path socket, CriTimeouts timeouts) {
        this.socket = socket;
        this.eventLoopGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("cri-client", true),
                EpollIoHandler.newFactory());
        this.channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(eventLoopGroup)
                .channelType(EpollDomainSocketChannel.class)
                .usePlaintext()
                // An authority that is a valid host name: the socket path is not one.
                .overrideAuthority("localhost")
                .maxInboundMessageSize(MAX_MESSAGE_SIZE)
                .build();
        this.runtimeService = new RemoteRuntimeService(channel, timeouts);
        this.imageService = new RemoteImageService(channel, timeouts);
    }

    /** A connection to the unix socket at {@code socket}. */
    public static CriConnection open(Path socket, CriTimeouts timeouts) {
        requireNonNull(socket, "socket is null");
        requireNonNull(timeouts, "timeouts is null");
        return new CriConnection(socket, timeouts);
    }

    /**
     * A connection to an endpoint written as upstream's {@code --container-runtime-endpoint}: {@code unix:///path}
     * or a plain absolute path.
     */
    public static CriConnection open(String endpoint, CriTimeouts timeouts) {
        return open(socketPath(endpoint), timeouts);
    }

    /** The socket path of an endpoint {@code unix:///path} or {@code /path}. */
    public static Path socketPath(String endpoint) {
        requireNonNull(endpoint, "endpoint is null");
        if (endpoint.startsWith("unix://")) {
            return Path.of(URI.create(endpoint).getPath());
        }
        if (endpoint.startsWith("/")) {
            return Path.of(endpoint);
        }
        throw new IllegalArgumentException("only unix socket endpoints are supported (unix:///path): " + endpoint);
    }

    public Path socket() {
        return socket;
    }

    public RuntimeService runtimeService() {
        return runtimeService;
    }

    public ImageService imageService() {
        return imageService;
    }

    /**
     * Connects again at once instead of after gRPC's reconnect backoff (up to two minutes): for a runtime that is known
     * to answer again, such as a containerd that was just restarted.
     */
    public void reconnectNow() {
        channel.resetConnectBackoff();
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        eventLoopGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
