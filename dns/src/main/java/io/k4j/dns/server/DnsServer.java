package io.k4j.dns.server;

import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DNS server on one address and port, over UDP and TCP. Over UDP, {@code RECEIVERS} platform threads take turns
 * receiving datagrams from one socket and answer what the handler answers without waiting (the cluster zone) on the
 * spot, with no hand-off; only a query whose answer needs a blocking step (forwarding upstream) goes to a virtual
 * thread, at most {@code maximumInFlightUdp} at once: beyond that such queries are dropped, as an overloaded resolver
 * does, and the client retries. One thread accepts TCP connections, each served by a virtual thread that reads
 * length-prefixed queries until the client closes, stays idle too long or the server stops. A query the handler gives
 * no answer gets none. Thread-safe; {@link #close()} stops everything.
 */
public final class DnsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("dns");
    private static final int MAXIMUM_DATAGRAM = 65535;
    /**
     * Threads receiving on the UDP socket: while one answers a query the other is already in the next receive, which
     * keeps both cores of a small node busy; more only contend for the socket's lock.
     */
    private static final int RECEIVERS = Math.min(2, Runtime.getRuntime().availableProcessors());

    /**
     * @param maximumInFlightUdp UDP queries waiting on an upstream resolver at once before further ones are dropped
     * @param maximumTcpConnections open TCP connections before new ones are closed at once
     * @param tcpIdleTimeout how long a TCP connection may wait for its next query
     */
    public record Limits(int maximumInFlightUdp, int maximumTcpConnections, Duration tcpIdleTimeout) {
        public Limits {
            if (maximumInFlightUdp < 1 || maximumTcpConnections < 1) {
                throw new IllegalArgumentException("limits must be positive");
            }
            requireNonNull(tcpIdleTimeout, "tcpIdleTimeout is null");
        }

        /** CoreDNS's (Go dns library's) TCP idle timeout of 8 s; a generous in-flight bound for one node. */
        public static Limits defaults() {
            return new Limits(4096, 256, Duration.ofSeconds(8));
        }
    }

    private final InetSocketAddress bindAddress;
    private final BiFunction<byte[], Transport, Reply> handler;
    private final Limits limits;
    private final Semaphore udpPermits;
    private final Semaphore tcpPermits;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong droppedUdp = new AtomicLong();
    private final ExecutorService queries = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Thread> udpLoops = new ArrayList<>();
    private volatile boolean running;
    private DatagramChannel udpChannel;
    private ServerSocket tcpSocket;
    private Thread tcpLoop;

    /**
     * @param bindAddress where to listen; port 0 picks a free port (the same one for UDP and TCP)
     * @param handler what a query packet deserves; it must not block (see {@link QueryHandler#reply})
     */
    public DnsServer(InetSocketAddress bindAddress, BiFunction<byte[], Transport, Reply> handler, Limits limits) {
        this.bindAddress = requireNonNull(bindAddress, "bindAddress is null");
        this.handler = requireNonNull(handler, "handler is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.udpPermits = new Semaphore(limits.maximumInFlightUdp());
        this.tcpPermits = new Semaphore(limits.maximumTcpConnections());
    }

    /** Binds UDP then TCP on the same port and starts serving; throws when either address is taken. */
    public synchronized void start() throws IOException {
        if (running) {
            throw new IllegalStateException("already started");
        }
        udpChannel = DatagramChannel.open(bindAddress.getAddress() instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try {
            udpChannel.bind(bindAddress);
            tcpSocket = new ServerSocket();
            tcpSocket.setReuseAddress(true);
            tcpSocket.bind(new InetSocketAddress(bindAddress.getAddress(), udpPort()), 128);
        } catch (IOException e) {
            udpChannel.close();
            if (tcpSocket != null) {
                tcpSocket.close();
            }
            throw new IOException("cannot listen for DNS on " + bindAddress + ": " + e.getMessage(), e);
        }
        running = true;
        for (int i = 0; i < RECEIVERS; i++) {
            udpLoops.add(Thread.ofPlatform().name("dns-udp-" + i).daemon().start(this::receiveDatagrams));
        }
        tcpLoop = Thread.ofPlatform().name("dns-tcp").daemon().start(this::acceptConnections);
        LOG.info("cluster DNS listening on {} (UDP and TCP)", address());
    }

    /** The address and port the server listens on (the chosen port when started with port 0). */
    public InetSocketAddress address() {
        return new InetSocketAddress(bindAddress.getAddress(), udpPort());
    }

    private int udpPort() {
        try {
            return ((InetSocketAddress) udpChannel.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** UDP queries dropped because too many were waiting on an upstream resolver. */
    public long droppedUdpQueries() {
        return droppedUdp.get();
    }

    private void receiveDatagrams() {
        // One buffer per thread for the life of the loop: a direct one, so receiving copies nothing in the JDK.
        ByteBuffer buffer = ByteBuffer.allocateDirect(MAXIMUM_DATAGRAM);
        while (running) {
            buffer.clear();
            SocketAddress client;
            try {
                client = udpChannel.receive(buffer);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (running) {
                    LOG.warn("DNS UDP receive failed: {}", e.toString());
                }
                continue;
            }
            buffer.flip();
            byte[] query = new byte[buffer.remaining()];
            buffer.get(query);
            Reply reply;
            try {
                reply = handler.apply(query, Transport.UDP);
            } catch (RuntimeException e) {
                LOG.warn("DNS query from {} failed: {}", client, e.toString());
                continue;
            }
            switch (reply) {
                case Reply.None ignored -> {
                }
                case Reply.Answer answer -> send(answer.packet(), client);
                case Reply.Deferred deferred -> complete(deferred, client);
            }
        }
    }

    /** Completes a query that waits on an upstream on a virtual thread of its own, within the in-flight limit. */
    private void complete(Reply.Deferred deferred, SocketAddress client) {
        if (!udpPermits.tryAcquire()) {
            droppedUdp.incrementAndGet();
            return;
        }
        try {
            queries.execute(() -> {
                try {
                    deferred.complete().ifPresent(response -> send(response, client));
                } finally {
                    udpPermits.release();
                }
            });
        } catch (RejectedExecutionException e) {
            udpPermits.release();
        }
    }

    private void send(byte[] response, SocketAddress client) {
        try {
            udpChannel.send(ByteBuffer.wrap(response), client);
        } catch (IOException e) {
            if (running) {
                LOG.debug("DNS UDP answer to {} failed: {}", client, e.toString());
            }
        }
    }

    private void acceptConnections() {
        while (running) {
            Socket socket;
            try {
                socket = tcpSocket.accept();
            } catch (IOException e) {
                if (running) {
                    LOG.warn("DNS TCP accept failed: {}", e.toString());
                }
                continue;
            }
            if (!tcpPermits.tryAcquire()) {
                closeQuietly(socket);
                continue;
            }
            connections.add(socket);
            try {
                queries.execute(() -> serve(socket));
            } catch (RejectedExecutionException e) {
                connections.remove(socket);
                tcpPermits.release();
                closeQuietly(socket);
            }
        }
    }

    /** Answers queries on one connection in order (RFC 7766 allows pipelining; answering in order is also allowed). */
    private void serve(Socket socket) {
        try (socket) {
            socket.setSoTimeout((int) Math.max(1, limits.tcpIdleTimeout().toMillis()));
            socket.setTcpNoDelay(true);
            DataInputStream input = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream output = new BufferedOutputStream(socket.getOutputStream());
            while (running) {
                int length;
                try {
                    length = input.readUnsignedShort();
                } catch (EOFException | SocketTimeoutException e) {
                    return;
                }
                byte[] query = new byte[length];
                input.readFully(query);
                Optional<byte[]> response = switch (handler.apply(query, Transport.TCP)) {
                    case Reply.None ignored -> Optional.empty();
                    case Reply.Answer answer -> Optional.of(answer.packet());
                    // This connection has a virtual thread of its own: waiting on the upstream here blocks nothing else.
                    case Reply.Deferred deferred -> deferred.complete();
                };
                if (response.isEmpty()) {
                    // No answer for a packet we must not answer; on a stream the client cannot tell, so hang up.
                    return;
                }
                byte[] bytes = response.get();
                output.write(bytes.length >>> 8);
                output.write(bytes.length & 0xFF);
                output.write(bytes);
                output.flush();
            }
        } catch (SocketException | EOFException | SocketTimeoutException e) {
            // The client went away or stalled mid-message: nothing to answer.
        } catch (IOException | RuntimeException e) {
            if (running) {
                LOG.debug("DNS TCP connection from {} failed: {}", socket.getRemoteSocketAddress(), e.toString());
            }
        } finally {
            connections.remove(socket);
            tcpPermits.release();
        }
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // Closing is best effort.
        }
    }

    @Override
    public synchronized void close() {
        if (!running) {
            return;
        }
        running = false;
        closeQuietly(udpChannel);
        closeQuietly(tcpSocket);
        connections.forEach(DnsServer::closeQuietly);
        queries.shutdown();
        try {
            for (Thread udpLoop : udpLoops) {
                udpLoop.join(TimeUnit.SECONDS.toMillis(5));
            }
            tcpLoop.join(TimeUnit.SECONDS.toMillis(5));
            queries.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
