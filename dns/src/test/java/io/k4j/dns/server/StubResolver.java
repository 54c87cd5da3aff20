package io.k4j.dns.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Section;

/**
 * An upstream resolver on 127.0.0.1 for tests: answers UDP and TCP with a function; can answer UDP with an empty
 * truncated response (so the client must retry over TCP), or stay silent over UDP (so the client times out).
 */
final class StubResolver implements AutoCloseable {
    enum UdpBehaviour { ANSWER, TRUNCATE, SILENT }

    private final DatagramSocket udp;
    private final ServerSocket tcp;
    private final Function<Message, Message> answer;
    private final UdpBehaviour udpBehaviour;
    final AtomicInteger udpQueries = new AtomicInteger();
    final AtomicInteger tcpQueries = new AtomicInteger();

    StubResolver(Function<Message, Message> answer, UdpBehaviour udpBehaviour) throws IOException {
        this.answer = answer;
        this.udpBehaviour = udpBehaviour;
        this.udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.tcp = new ServerSocket(udp.getLocalPort(), 16, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::serveUdp);
        Thread.ofVirtual().start(this::serveTcp);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), udp.getLocalPort());
    }

    private void serveUdp() {
        byte[] buffer = new byte[65535];
        while (!udp.isClosed()) {
            try {
                DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                udp.receive(packet);
                udpQueries.incrementAndGet();
                Message query = new Message(Arrays.copyOf(packet.getData(), packet.getLength()));
                byte[] response = switch (udpBehaviour) {
                    case ANSWER -> answer.apply(query).toWire();
                    case TRUNCATE -> truncated(query).toWire();
                    case SILENT -> null;
                };
                if (response != null) {
                    udp.send(new DatagramPacket(response, response.length, packet.getSocketAddress()));
                }
            } catch (IOException e) {
                // Closed, or a packet we could not read: keep serving until closed.
            }
        }
    }

    private void serveTcp() {
        while (!tcp.isClosed()) {
            try (Socket socket = tcp.accept()) {
                DataInputStream input = new DataInputStream(socket.getInputStream());
                DataOutputStream output = new DataOutputStream(socket.getOutputStream());
                byte[] query = new byte[input.readUnsignedShort()];
                input.readFully(query);
                tcpQueries.incrementAndGet();
                byte[] response = answer.apply(new Message(query)).toWire();
                output.writeShort(response.length);
                output.write(response);
                output.flush();
            } catch (IOException e) {
                // As above.
            }
        }
    }

    private static Message truncated(Message query) {
        Message response = new Message(query.getHeader().getID());
        response.getHeader().setFlag(Flags.QR);
        response.getHeader().setFlag(Flags.TC);
        response.addRecord(query.getQuestion(), Section.QUESTION);
        return response;
    }

    @Override
    public void close() throws IOException {
        udp.close();
        tcp.close();
    }
}
