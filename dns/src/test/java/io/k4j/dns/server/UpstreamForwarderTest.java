package io.k4j.dns.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

class UpstreamForwarderTest {
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @Test
    void answersOverUdp() throws Exception {
        try (StubResolver upstream = new StubResolver(answer(3), StubResolver.UdpBehaviour.ANSWER)) {
            Message response = new UpstreamForwarder(List.of(upstream.address()), TIMEOUT).forward(query());

            assertThat(response.getSection(Section.ANSWER)).hasSize(3);
            assertThat(upstream.udpQueries).hasValue(1);
            assertThat(upstream.tcpQueries).hasValue(0);
        }
    }

    @Test
    void retriesOverTcpWhenTheUdpAnswerIsTruncated() throws Exception {
        try (StubResolver upstream = new StubResolver(answer(200), StubResolver.UdpBehaviour.TRUNCATE)) {
            Message response = new UpstreamForwarder(List.of(upstream.address()), TIMEOUT).forward(query());

            assertThat(response.getHeader().getFlag(Flags.TC)).isFalse();
            assertThat(response.getSection(Section.ANSWER)).hasSize(200);
            assertThat(upstream.tcpQueries).hasValue(1);
        }
    }

    @Test
    void triesTheNextUpstreamWhenOneTimesOut() throws Exception {
        try (StubResolver silent = new StubResolver(answer(1), StubResolver.UdpBehaviour.SILENT);
                StubResolver working = new StubResolver(answer(1), StubResolver.UdpBehaviour.ANSWER)) {
            Message response = new UpstreamForwarder(List.of(silent.address(), working.address()), TIMEOUT).forward(query());

            assertThat(response.getSection(Section.ANSWER)).hasSize(1);
            assertThat(silent.udpQueries.get()).isPositive();
        }
    }

    @Test
    void failsWhenNoUpstreamAnswers() throws Exception {
        try (StubResolver silent = new StubResolver(answer(1), StubResolver.UdpBehaviour.SILENT)) {
            UpstreamForwarder forwarder = new UpstreamForwarder(List.of(silent.address()), TIMEOUT);

            assertThatThrownBy(() -> forwarder.forward(query())).isInstanceOf(IOException.class);
        }
        assertThatThrownBy(() -> new UpstreamForwarder(List.of(), TIMEOUT).forward(query())).isInstanceOf(IOException.class);
    }

    @Test
    void readsNameServersFromResolvConf() {
        assertThat(ResolvConf.nameServers("""
                # generated
                search example.com
                nameserver 192.0.2.53
                nameserver fe80::1%eth0
                nameserver not-an-address
                options ndots:2
                """)).extracting(address -> address.getAddress().getHostAddress() + ":" + address.getPort())
                .containsExactly("192.0.2.53:53", "fe80:0:0:0:0:0:0:1:53");
    }

    static Message query() throws Exception {
        return Message.newQuery(Record.newRecord(Name.fromString("example.com."), Type.A, DClass.IN));
    }

    static java.util.function.Function<Message, Message> answer(int records) {
        return query -> {
            Message response = new Message(query.getHeader().getID());
            response.getHeader().setFlag(Flags.QR);
            response.addRecord(query.getQuestion(), Section.QUESTION);
            for (int i = 0; i < records; i++) {
                try {
                    response.addRecord(new ARecord(query.getQuestion().getName(), DClass.IN, 60,
                            InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, (byte) (i % 250 + 1)})), Section.ANSWER);
                } catch (java.net.UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
            return response;
        };
    }
}
