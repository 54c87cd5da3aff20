package io.k4j.dns.server;

import static io.k4j.dns.records.Fixtures.clusterIpService;
import static io.k4j.dns.records.Fixtures.headlessService;
import static io.k4j.dns.records.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
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
        server = new DnsServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), handler::reply,
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

    @Test
    void zoneIsAnsweredWhileForwardedQueriesWaitOnTheUpstreamAndOnlyThoseCountAgainstTheLimit() throws Exception {
        CountDownLatch forwarding = new CountDownLatch(1);
        CountDownLatch upstreamAnswers = new CountDownLatch(1);
        InetAddress upstreamAddress = InetAddress.getByName("192.0.2.1");
        FakeForwarder slowUpstream = new FakeForwarder(query -> {
            forwarding.countDown();
            try {
                upstreamAnswers.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            Message response = new Message(query.getHeader().getID());
            response.getHeader().setFlag(Flags.QR);
            response.addRecord(query.getQuestion(), Section.QUESTION);
            response.addRecord(new ARecord(query.getQuestion().getName(), DClass.IN, 300, upstreamAddress), Section.ANSWER);
            return response;
        });
        QueryHandler handler = new QueryHandler(new ClusterAnswers(index, "cluster.local", Duration.ofSeconds(5), Optional.empty()), slowUpstream);
        // One query may wait on the upstream at a time.
        try (DnsServer limited = new DnsServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), handler::reply,
                new DnsServer.Limits(1, 8, Duration.ofSeconds(2)));
                DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            limited.start();
            client.setSoTimeout(5000);
            send(client, limited.address(), query("example.com.", Type.A), 1);
            assertThat(forwarding.await(5, TimeUnit.SECONDS)).isTrue();
            send(client, limited.address(), query("example.org.", Type.A), 2);
            await().atMost(Duration.ofSeconds(5)).until(limited::droppedUdpQueries, dropped -> dropped == 1);

            SimpleResolver resolver = new SimpleResolver(limited.address());
            resolver.setTimeout(Duration.ofSeconds(5));
            assertThat(addresses(resolver.send(query("web.shop.svc.cluster.local.", Type.A)))).containsExactly("10.96.0.20");
            assertThat(limited.droppedUdpQueries()).isEqualTo(1);

            upstreamAnswers.countDown();
            Message forwarded = receive(client);
            assertThat(forwarded.getHeader().getID()).isEqualTo(1);
            assertThat(addresses(forwarded)).containsExactly("192.0.2.1");
        } finally {
            upstreamAnswers.countDown();
        }
    }

    @Test
    void severalClientsAreAnsweredConcurrently() throws Exception {
        List<DatagramSocket> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                client.setSoTimeout(5000);
                clients.add(client);
            }
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < clients.size(); i++) {
                    send(clients.get(i), server.address(), query(i % 2 == 0 ? "web.shop.svc.cluster.local." : "nope.shop.svc.cluster.local.", Type.A), round * 8 + i);
                }
                for (int i = 0; i < clients.size(); i++) {
                    Message response = receive(clients.get(i));
                    assertThat(response.getHeader().getID()).isEqualTo(round * 8 + i);
                    assertThat(response.getRcode()).isEqualTo(i % 2 == 0 ? Rcode.NOERROR : Rcode.NXDOMAIN);
                }
            }
        } finally {
            clients.forEach(DatagramSocket::close);
        }
    }

    private static void send(DatagramSocket client, InetSocketAddress server, Message query, int id) throws Exception {
        query.getHeader().setID(id);
        byte[] wire = query.toWire();
        client.send(new DatagramPacket(wire, wire.length, server));
    }

    private static Message receive(DatagramSocket client) throws Exception {
        DatagramPacket packet = new DatagramPacket(new byte[4096], 4096);
        client.receive(packet);
        return new Message(java.util.Arrays.copyOf(packet.getData(), packet.getLength()));
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
