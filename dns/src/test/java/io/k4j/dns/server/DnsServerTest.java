package io.k4j.dns.server;

import static io.k4j.dns.records.Fixtures.clusterIpService;
import static io.k4j.dns.records.Fixtures.headlessService;
import static io.k4j.dns.records.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.dns.records.ClusterAnswers;
import io.k4j.dns.records.Fixtures.Address;
import io.k4j.dns.records.Fixtures.Port;
import io.k4j.dns.records.RecordIndex;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

class DnsServerTest {
    private static final Port HTTP = new Port("http", "TCP", 80);
    private final RecordIndex index = new RecordIndex(InstantSource.system());
    private DnsServer server;

    @BeforeEach
    void start() throws Exception {
        index.putService(clusterIpService("shop", "web", "10.96.0.20", HTTP));
        List<Address> addresses = new ArrayList<>();
        for (int i = 1; i <= 60; i++) {
            addresses.add(Address.ready("10.42.9." + i));
        }
        index.putService(headlessService("shop", "big", HTTP));
        index.putEndpointSlice(slice("shop", "big-1", "big", "IPv4", List.of(HTTP), addresses.toArray(Address[]::new)));
        QueryHandler handler = new QueryHandler(new ClusterAnswers(index, "cluster.local", Duration.ofSeconds(5), Optional.empty()),
                FakeForwarder.failing());
        server = new DnsServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), handler::handle,
                new DnsServer.Limits(64, 8, Duration.ofSeconds(2)));
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void answersOverUdpAndTcp() throws Exception {
        SimpleResolver resolver = resolver();
        assertThat(addresses(resolver.send(query("web.shop.svc.cluster.local.", Type.A)))).containsExactly("10.96.0.20");

        resolver.setTCP(true);
        assertThat(addresses(resolver.send(query("web.shop.svc.cluster.local.", Type.A)))).containsExactly("10.96.0.20");
    }

    @Test
    void truncatedUdpAnswerIsCompletedOverTcpByTheClient() throws Exception {
        SimpleResolver resolver = resolver();
        resolver.setEDNS(-1);

        Message response = resolver.send(query("big.shop.svc.cluster.local.", Type.A));

        assertThat(response.getSection(Section.ANSWER)).hasSize(60);
    }

    @Test
    void tcpConnectionCarriesSeveralQueries() throws Exception {
        try (Socket socket = new Socket(server.address().getAddress(), server.address().getPort())) {
            DataOutputStream output = new DataOutputStream(socket.getOutputStream());
            DataInputStream input = new DataInputStream(socket.getInputStream());
            for (String name : List.of("web.shop.svc.cluster.local.", "nope.shop.svc.cluster.local.", "big.shop.svc.cluster.local.")) {
                byte[] wire = query(name, Type.A).toWire();
                output.writeShort(wire.length);
                output.write(wire);
                output.flush();
                byte[] response = new byte[input.readUnsignedShort()];
                input.readFully(response);
                assertThat(new Message(response).getQuestion().getName()).isEqualTo(Name.fromString(name));
            }
        }
    }

    @Test
    void garbageNeverHurtsTheServer() throws Exception {
        try (DatagramSocket client = new DatagramSocket()) {
            client.setSoTimeout(5000);
            client.send(new DatagramPacket(new byte[] {1, 2, 3}, 3, server.address()));
            byte[] formErr = {0x55, 0x66, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f, 'x'};
            client.send(new DatagramPacket(formErr, formErr.length, server.address()));
            DatagramPacket reply = new DatagramPacket(new byte[512], 512);
            client.receive(reply);
            Message response = new Message(java.util.Arrays.copyOf(reply.getData(), reply.getLength()));
            assertThat(response.getHeader().getID()).isEqualTo(0x5566);
            assertThat(response.getRcode()).isEqualTo(Rcode.FORMERR);
        }
        try (Socket socket = new Socket(server.address().getAddress(), server.address().getPort())) {
            DataOutputStream output = new DataOutputStream(socket.getOutputStream());
            output.writeShort(400);
            output.write(new byte[] {9, 9, 9});
            // Half a message, then hang up.
        }
        assertThat(addresses(resolver().send(query("web.shop.svc.cluster.local.", Type.A)))).containsExactly("10.96.0.20");
    }

    private SimpleResolver resolver() {
        SimpleResolver resolver = new SimpleResolver(server.address());
        resolver.setTimeout(Duration.ofSeconds(5));
        return resolver;
    }

    private static Message query(String name, int type) throws Exception {
        return Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    }

    private static List<String> addresses(Message response) {
        return response.getSection(Section.ANSWER).stream().map(record -> ((ARecord) record).getAddress().getHostAddress()).toList();
    }
}
