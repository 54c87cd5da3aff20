package io.k4j.dns.server;

import static io.k4j.dns.records.Fixtures.clusterIpService;
import static io.k4j.dns.records.Fixtures.externalNameService;
import static io.k4j.dns.records.Fixtures.headlessService;
import static io.k4j.dns.records.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.dns.records.ClusterAnswers;
import io.k4j.dns.records.Fixtures.Address;
import io.k4j.dns.records.Fixtures.Port;
import io.k4j.dns.records.RecordIndex;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.ReverseMap;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

class QueryHandlerTest {
    private static final Port HTTP = new Port("http", "TCP", 80);
    private static final Port DNS = new Port("dns", "UDP", 53);
    private final RecordIndex index = new RecordIndex(InstantSource.fixed(Instant.parse("2026-11-22T12:00:00Z")));
    private final FakeForwarder forwarder = new FakeForwarder(QueryHandlerTest::upstreamAnswer);
    private final QueryHandler handler = new QueryHandler(
            new ClusterAnswers(index, "cluster.local", Duration.ofSeconds(5), Optional.of(address("10.96.0.10"))), forwarder);

    @BeforeEach
    void services() {
        index.putService(clusterIpService("default", "kubernetes", "10.96.0.1", new Port("https", "TCP", 443)));
        index.putService(clusterIpService("shop", "web", "10.96.0.20", HTTP, DNS));
        index.putService(headlessService("shop", "db", HTTP));
        index.putEndpointSlice(slice("shop", "db-abc", "db", "IPv4", List.of(HTTP),
                new Address("10.42.0.5", "db-0", true), Address.ready("10.42.1.6"), new Address("10.42.2.7", null, false)));
        index.putService(externalNameService("shop", "search", "search.example.com"));
        index.putService(externalNameService("shop", "alias", "web.shop.svc.cluster.local"));
    }

    @Test
    void clusterIpServiceAnswersItsAddressAuthoritativelyWithTheDefaultTtl() {
        Message response = ask("web.shop.svc.cluster.local.", Type.A);

        assertThat(response.getRcode()).isEqualTo(Rcode.NOERROR);
        assertThat(response.getHeader().getFlag(Flags.AA)).isTrue();
        assertThat(response.getHeader().getFlag(Flags.QR)).isTrue();
        assertThat(response.getHeader().getFlag(Flags.RD)).isTrue();
        assertThat(response.getSection(Section.ANSWER)).singleElement().satisfies(record -> {
            assertThat(((ARecord) record).getAddress()).isEqualTo(address("10.96.0.20"));
            assertThat(record.getTTL()).isEqualTo(5);
        });
        assertThat(ask("KUBERNETES.Default.SVC.cluster.local.", Type.A).getSection(Section.ANSWER))
                .extracting(record -> ((ARecord) record).getAddress()).containsExactly(address("10.96.0.1"));
    }

    @Test
    void aaaaOfAnIpv4OnlyServiceIsNoDataWithTheSoa() {
        Message response = ask("web.shop.svc.cluster.local.", Type.AAAA);

        assertThat(response.getRcode()).isEqualTo(Rcode.NOERROR);
        assertThat(response.getSection(Section.ANSWER)).isEmpty();
        assertThat(response.getSection(Section.AUTHORITY)).singleElement().isInstanceOf(SOARecord.class);
    }

    @Test
    void headlessServiceAnswersEveryReadyEndpoint() {
        assertThat(addresses(ask("db.shop.svc.cluster.local.", Type.A))).containsExactly(address("10.42.0.5"), address("10.42.1.6"));
        assertThat(addresses(ask("db-0.db.shop.svc.cluster.local.", Type.A))).containsExactly(address("10.42.0.5"));
        assertThat(addresses(ask("10-42-1-6.db.shop.svc.cluster.local.", Type.A))).containsExactly(address("10.42.1.6"));
        assertThat(ask("10-42-2-7.db.shop.svc.cluster.local.", Type.A).getRcode()).isEqualTo(Rcode.NXDOMAIN);
    }

    @Test
    void srvOfANamedPortTargetsTheServiceWithItsAddressAsGlue() throws Exception {
        Message response = ask("_http._tcp.web.shop.svc.cluster.local.", Type.SRV);

        SRVRecord srv = (SRVRecord) response.getSection(Section.ANSWER).getFirst();
        assertThat(response.getSection(Section.ANSWER)).hasSize(1);
        assertThat(srv.getPort()).isEqualTo(80);
        assertThat(srv.getWeight()).isEqualTo(100);
        assertThat(srv.getTarget()).isEqualTo(Name.fromString("web.shop.svc.cluster.local."));
        assertThat(addresses(response, Section.ADDITIONAL)).containsExactly(address("10.96.0.20"));
        assertThat(((SRVRecord) ask("_dns._udp.web.shop.svc.cluster.local.", Type.SRV).getSection(Section.ANSWER).getFirst()).getPort()).isEqualTo(53);
        assertThat(ask("_dns._tcp.web.shop.svc.cluster.local.", Type.SRV).getRcode()).isEqualTo(Rcode.NXDOMAIN);
        assertThat(ask("_http._tcp.web.shop.svc.cluster.local.", Type.A).getRcode()).isEqualTo(Rcode.NOERROR);
        assertThat(ask("_tcp.web.shop.svc.cluster.local.", Type.A).getRcode()).isEqualTo(Rcode.NOERROR);
    }

    @Test
    void srvOfAHeadlessServiceTargetsEachEndpoint() throws Exception {
        Message response = ask("_http._tcp.db.shop.svc.cluster.local.", Type.SRV);

        assertThat(response.getSection(Section.ANSWER)).extracting(record -> ((SRVRecord) record).getTarget())
                .containsExactly(Name.fromString("db-0.db.shop.svc.cluster.local."), Name.fromString("10-42-1-6.db.shop.svc.cluster.local."));
        assertThat(response.getSection(Section.ANSWER)).extracting(record -> ((SRVRecord) record).getWeight()).containsOnly(50);
        assertThat(addresses(response, Section.ADDITIONAL)).containsExactly(address("10.42.0.5"), address("10.42.1.6"));
    }

    @Test
    void srvOfTheServiceNameListsEveryPort() {
        assertThat(ask("web.shop.svc.cluster.local.", Type.SRV).getSection(Section.ANSWER))
                .extracting(record -> ((SRVRecord) record).getPort()).containsExactly(80, 53);
    }

    @Test
    void podNamesAnswerTheAddressTheySpell() {
        assertThat(addresses(ask("10-42-3-4.shop.pod.cluster.local.", Type.A))).containsExactly(address("10.42.3.4"));
        assertThat(ask("10-42-3-4.shop.pod.cluster.local.", Type.AAAA).getRcode()).isEqualTo(Rcode.NOERROR);
        assertThat(ask("not-an-ip.shop.pod.cluster.local.", Type.A).getRcode()).isEqualTo(Rcode.NXDOMAIN);
    }

    @Test
    void externalNameIsACnameFollowedOutsideTheZoneThroughTheForwarder() throws Exception {
        Message response = ask("search.shop.svc.cluster.local.", Type.A);

        List<Record> answers = response.getSection(Section.ANSWER);
        assertThat(((CNAMERecord) answers.getFirst()).getTarget()).isEqualTo(Name.fromString("search.example.com."));
        assertThat(addresses(response)).containsExactly(address("192.0.2.1"));
        assertThat(forwarder.forwarded).extracting(query -> query.getQuestion().getName().toString()).containsExactly("search.example.com.");
        assertThat(ask("search.shop.svc.cluster.local.", Type.CNAME).getSection(Section.ANSWER)).hasSize(1);
    }

    @Test
    void externalNameInsideTheZoneIsFollowedInTheZone() {
        Message response = ask("alias.shop.svc.cluster.local.", Type.A);

        assertThat(response.getSection(Section.ANSWER)).hasSize(2);
        assertThat(addresses(response)).containsExactly(address("10.96.0.20"));
        assertThat(forwarder.forwarded).isEmpty();
    }

    @Test
    void ptrOfServiceAndEndpointAddresses() throws Exception {
        assertThat(((PTRRecord) ask(ReverseMap.fromAddress("10.96.0.20").toString(), Type.PTR).getSection(Section.ANSWER).getFirst()).getTarget())
                .isEqualTo(Name.fromString("web.shop.svc.cluster.local."));
        assertThat(((PTRRecord) ask(ReverseMap.fromAddress("10.42.0.5").toString(), Type.PTR).getSection(Section.ANSWER).getFirst()).getTarget())
                .isEqualTo(Name.fromString("db-0.db.shop.svc.cluster.local."));
        assertThat(forwarder.forwarded).isEmpty();
    }

    @Test
    void ptrOfAnUnknownAddressFallsThroughToTheForwarder() throws Exception {
        Message response = ask(ReverseMap.fromAddress("192.0.2.99").toString(), Type.PTR);

        assertThat(response.getRcode()).isEqualTo(Rcode.NXDOMAIN);
        assertThat(forwarder.forwarded).hasSize(1);
    }

    @Test
    void unknownNamesInTheZoneAreNxdomainWithTheZoneSoa() throws Exception {
        for (String name : List.of("nope.shop.svc.cluster.local.", "web.nope.svc.cluster.local.", "nope.cluster.local.", "a.b.web.shop.svc.cluster.local.")) {
            Message response = ask(name, Type.A);

            assertThat(response.getRcode()).as(name).isEqualTo(Rcode.NXDOMAIN);
            assertThat(response.getHeader().getFlag(Flags.AA)).isTrue();
            SOARecord soa = (SOARecord) response.getSection(Section.AUTHORITY).getFirst();
            assertThat(soa.getName()).isEqualTo(Name.fromString("cluster.local."));
            assertThat(soa.getHost()).isEqualTo(Name.fromString("ns.dns.cluster.local."));
            assertThat(soa.getAdmin()).isEqualTo(Name.fromString("hostmaster.cluster.local."));
            assertThat(soa.getMinimum()).isEqualTo(5);
            assertThat(soa.getSerial()).isEqualTo(Instant.parse("2026-11-22T12:00:00Z").getEpochSecond());
        }
        assertThat(forwarder.forwarded).isEmpty();
    }

    @Test
    void existingNamesWithoutTheTypeAreNoData() {
        for (String name : List.of("web.shop.svc.cluster.local.", "shop.svc.cluster.local.", "svc.cluster.local.", "cluster.local.")) {
            Message response = ask(name, Type.MX);

            assertThat(response.getRcode()).as(name).isEqualTo(Rcode.NOERROR);
            assertThat(response.getSection(Section.ANSWER)).as(name).isEmpty();
            assertThat(response.getSection(Section.AUTHORITY)).as(name).singleElement().isInstanceOf(SOARecord.class);
        }
    }

    @Test
    void zoneApexAnswersSoaAndNs() {
        assertThat(ask("cluster.local.", Type.SOA).getSection(Section.ANSWER)).singleElement().isInstanceOf(SOARecord.class);
        Message ns = ask("cluster.local.", Type.NS);
        assertThat(ns.getSection(Section.ANSWER)).hasSize(1);
        assertThat(addresses(ns, Section.ADDITIONAL)).containsExactly(address("10.96.0.10"));
    }

    @Test
    void namesOutsideTheZoneAreForwardedAndAnsweredWithTheClientsId() {
        Message query = Message.newQuery(Record.newRecord(name("example.com."), Type.A, DClass.IN));
        query.getHeader().setID(4242);

        Message response = parse(handler.handle(query.toWire(), Transport.UDP).orElseThrow());

        assertThat(response.getHeader().getID()).isEqualTo(4242);
        assertThat(addresses(response)).containsExactly(address("192.0.2.1"));
        assertThat(response.getOPT()).isNull();
    }

    @Test
    void replyAnswersTheZoneAtOnceAndDefersOnlyWhatNeedsTheForwarder() {
        assertThat(handler.reply(wire("web.shop.svc.cluster.local.", Type.A), Transport.UDP)).isInstanceOf(Reply.Answer.class);
        assertThat(handler.reply(wire("nope.shop.svc.cluster.local.", Type.A), Transport.UDP)).isInstanceOf(Reply.Answer.class);
        assertThat(handler.reply(wire("alias.shop.svc.cluster.local.", Type.A), Transport.UDP)).isInstanceOf(Reply.Answer.class);
        assertThat(handler.reply(new byte[] {1, 2, 3}, Transport.UDP)).isEqualTo(Reply.none());

        Reply outside = handler.reply(wire("example.com.", Type.A), Transport.UDP);
        Reply externalName = handler.reply(wire("search.shop.svc.cluster.local.", Type.A), Transport.UDP);

        assertThat(outside).isInstanceOf(Reply.Deferred.class);
        assertThat(externalName).isInstanceOf(Reply.Deferred.class);
        assertThat(forwarder.forwarded).isEmpty();
        assertThat(addresses(parse(((Reply.Deferred) outside).complete().orElseThrow()))).containsExactly(address("192.0.2.1"));
        Message chased = parse(((Reply.Deferred) externalName).complete().orElseThrow());
        assertThat(chased.getSection(Section.ANSWER)).hasSize(2);
        assertThat(forwarder.forwarded).extracting(query -> query.getQuestion().getName().toString()).containsExactly("example.com.", "search.example.com.");
    }

    @Test
    void upstreamFailureIsServfail() {
        QueryHandler failing = new QueryHandler(new ClusterAnswers(index, "cluster.local", Duration.ofSeconds(5), Optional.empty()), FakeForwarder.failing());

        Message query = Message.newQuery(Record.newRecord(name("example.com."), Type.A, DClass.IN));
        assertThat(parse(failing.handle(query.toWire(), Transport.UDP).orElseThrow()).getRcode()).isEqualTo(Rcode.SERVFAIL);
    }

    @Test
    void garbageAfterAReadableHeaderIsFormErrAndShorterGarbageIsDropped() {
        byte[] packet = {0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 'e', 'x'};

        Message response = parse(handler.handle(packet, Transport.UDP).orElseThrow());

        assertThat(response.getHeader().getID()).isEqualTo(0x1234);
        assertThat(response.getRcode()).isEqualTo(Rcode.FORMERR);
        assertThat(response.getHeader().getFlag(Flags.QR)).isTrue();
        assertThat(handler.handle(new byte[] {1, 2, 3}, Transport.UDP)).isEmpty();
        assertThat(handler.handle(new byte[0], Transport.TCP)).isEmpty();
    }

    @Test
    void responsesAreNeverAnswered() {
        Message message = Message.newQuery(Record.newRecord(name("web.shop.svc.cluster.local."), Type.A, DClass.IN));
        message.getHeader().setFlag(Flags.QR);

        assertThat(handler.handle(message.toWire(), Transport.UDP)).isEmpty();
    }

    @Test
    void otherOpcodesAreNotImplementedAndSeveralQuestionsAreFormErr() {
        Message notify = Message.newQuery(Record.newRecord(name("cluster.local."), Type.SOA, DClass.IN));
        notify.getHeader().setOpcode(Opcode.NOTIFY);
        assertThat(parse(handler.handle(notify.toWire(), Transport.UDP).orElseThrow()).getRcode()).isEqualTo(Rcode.NOTIMP);

        Message two = Message.newQuery(Record.newRecord(name("web.shop.svc.cluster.local."), Type.A, DClass.IN));
        two.addRecord(Record.newRecord(name("db.shop.svc.cluster.local."), Type.A, DClass.IN), Section.QUESTION);
        assertThat(parse(handler.handle(two.toWire(), Transport.UDP).orElseThrow()).getRcode()).isEqualTo(Rcode.FORMERR);
    }

    @Test
    void unknownEdnsVersionIsBadvers() {
        Message query = Message.newQuery(Record.newRecord(name("web.shop.svc.cluster.local."), Type.A, DClass.IN));
        query.addRecord(new OPTRecord(4096, 0, 1, 0), Section.ADDITIONAL);

        Message response = parse(handler.handle(query.toWire(), Transport.UDP).orElseThrow());

        assertThat(response.getRcode()).isEqualTo(Rcode.BADVERS);
    }

    @Test
    void largeUdpAnswersAreTruncatedToTheClientsSizeAndWholeOverTcp() {
        List<Address> addresses = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            addresses.add(Address.ready("10.42.9." + i));
        }
        index.putService(headlessService("shop", "big", HTTP));
        index.putEndpointSlice(slice("shop", "big-1", "big", "IPv4", List.of(HTTP), addresses.toArray(Address[]::new)));
        Message query = Message.newQuery(Record.newRecord(name("big.shop.svc.cluster.local."), Type.A, DClass.IN));

        byte[] plain = handler.handle(query.toWire(), Transport.UDP).orElseThrow();
        assertThat(plain.length).isLessThanOrEqualTo(512);
        assertThat(parse(plain).getHeader().getFlag(Flags.TC)).isTrue();

        byte[] tcp = handler.handle(query.toWire(), Transport.TCP).orElseThrow();
        assertThat(parse(tcp).getHeader().getFlag(Flags.TC)).isFalse();
        assertThat(parse(tcp).getSection(Section.ANSWER)).hasSize(100);

        query.addRecord(new OPTRecord(4096, 0, 0, 0), Section.ADDITIONAL);
        Message edns = parse(handler.handle(query.toWire(), Transport.UDP).orElseThrow());
        assertThat(edns.getHeader().getFlag(Flags.TC)).isFalse();
        assertThat(edns.getSection(Section.ANSWER)).hasSize(100);
        assertThat(edns.getOPT().getPayloadSize()).isEqualTo(QueryHandler.ADVERTISED_UDP_SIZE);
    }

    private Message ask(String name, int type) {
        Message query = Message.newQuery(Record.newRecord(name(name), type, DClass.IN));
        return parse(handler.handle(query.toWire(), Transport.TCP).orElseThrow());
    }

    private static byte[] wire(String name, int type) {
        return Message.newQuery(Record.newRecord(name(name), type, DClass.IN)).toWire();
    }

    private static Message upstreamAnswer(Message query) {
        Message response = new Message(query.getHeader().getID());
        response.getHeader().setFlag(Flags.QR);
        response.addRecord(query.getQuestion(), Section.QUESTION);
        Name name = query.getQuestion().getName();
        if (name.toString().endsWith("in-addr.arpa.")) {
            response.getHeader().setRcode(Rcode.NXDOMAIN);
        } else {
            response.addRecord(new ARecord(name, DClass.IN, 300, address("192.0.2.1")), Section.ANSWER);
        }
        response.addRecord(new OPTRecord(4096, 0, 0, 0), Section.ADDITIONAL);
        return response;
    }

    private static List<InetAddress> addresses(Message response) {
        return addresses(response, Section.ANSWER);
    }

    private static List<InetAddress> addresses(Message response, int section) {
        return response.getSection(section).stream().filter(ARecord.class::isInstance).map(record -> ((ARecord) record).getAddress()).toList();
    }

    private static Message parse(byte[] wire) {
        try {
            return new Message(wire);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Name name(String text) {
        try {
            return Name.fromString(text);
        } catch (org.xbill.DNS.TextParseException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
