package io.k4j.dns.server;

import static java.util.Objects.requireNonNull;

import io.k4j.dns.records.ClusterAnswers;
import io.k4j.dns.records.Lookup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Turns one query packet into one response packet: the cluster zone from {@link ClusterAnswers}, everything else
 * through the {@link Forwarder}. Garbage never escapes as an exception: a packet whose header parses but whose body
 * does not is answered FORMERR, anything shorter than a header (or any response packet) is dropped. UDP answers are
 * cut to the client's size (512 bytes, or its EDNS0 payload size) with the TC bit, so the client retries over TCP.
 * {@link #reply} never blocks: what needs the forwarder comes back deferred. Thread-safe.
 */
public final class QueryHandler {
    private static final Logger LOG = LoggerFactory.getLogger("dns");
    /** The classic limit of a UDP answer without EDNS0. */
    static final int MINIMUM_UDP_SIZE = 512;
    /** What this server tells EDNS0 clients it accepts over UDP: the DNS flag day 2020 size, safe from fragmentation. */
    static final int ADVERTISED_UDP_SIZE = 1232;
    private static final int MAXIMUM_MESSAGE_SIZE = 65535;
    private static final int MAXIMUM_CNAME_CHAIN = 8;

    private final ClusterAnswers answers;
    private final Forwarder forwarder;

    public QueryHandler(ClusterAnswers answers, Forwarder forwarder) {
        this.answers = requireNonNull(answers, "answers is null");
        this.forwarder = requireNonNull(forwarder, "forwarder is null");
    }

    /**
     * The response to {@code packet}, or empty when the packet deserves none; blocks while a resolver outside the cluster
     * is asked (see {@link #reply} for a caller that must not block).
     */
    public Optional<byte[]> handle(byte[] packet, Transport transport) {
        return switch (reply(packet, transport)) {
            case Reply.None ignored -> Optional.empty();
            case Reply.Answer answer -> Optional.of(answer.packet());
            case Reply.Deferred deferred -> deferred.complete();
        };
    }

    /**
     * What {@code packet} deserves, without blocking: everything the cluster zone answers (and every error) is answered
     * now; a query that needs the {@link Forwarder} (a name outside the zone, an ExternalName whose CNAME leaves it) is
     * returned {@link Reply.Deferred deferred}, to be completed where waiting on an upstream is fine.
     */
    public Reply reply(byte[] packet, Transport transport) {
        if (packet.length < Header.LENGTH) {
            return Reply.none();
        }
        Header header;
        try {
            header = new Header(packet);
        } catch (IOException e) {
            return Reply.none();
        }
        // Never answer a response: two servers (or a spoofed source) must not be able to loop packets through us.
        if (header.getFlag(Flags.QR)) {
            return Reply.none();
        }
        Message query;
        try {
            query = new Message(packet);
        } catch (IOException | RuntimeException e) {
            return Reply.answer(error(header, Rcode.FORMERR).toWire());
        }
        Optional<byte[]> inline = respondSafely(query, transport, false);
        if (inline.isPresent()) {
            return Reply.answer(inline.get());
        }
        // The second pass repeats the cheap index work; it is only taken by queries that wait on an upstream anyway.
        return Reply.deferred(() -> respondSafely(query, transport, true));
    }

    /** The response, or empty when it needs the forwarder and {@code mayBlock} is false. */
    private Optional<byte[]> respondSafely(Message query, Transport transport, boolean mayBlock) {
        try {
            return respond(query, transport, mayBlock);
        } catch (RuntimeException e) {
            LOG.warn("failed to answer {}: {}", query.getQuestion(), e.toString());
            return Optional.of(error(query.getHeader(), Rcode.SERVFAIL).toWire());
        }
    }

    private Optional<byte[]> respond(Message query, Transport transport, boolean mayBlock) {
        Header header = query.getHeader();
        OPTRecord clientOpt = query.getOPT();
        int maximumSize = switch (transport) {
            case UDP -> clientOpt == null ? MINIMUM_UDP_SIZE : Math.min(MAXIMUM_MESSAGE_SIZE, Math.max(MINIMUM_UDP_SIZE, clientOpt.getPayloadSize()));
            case TCP -> MAXIMUM_MESSAGE_SIZE;
        };
        if (header.getOpcode() != Opcode.QUERY) {
            return Optional.of(withOpt(emptyResponse(query, Rcode.NOTIMP), clientOpt).toWire(maximumSize));
        }
        if (header.getCount(Section.QUESTION) != 1) {
            return Optional.of(withOpt(emptyResponse(query, Rcode.FORMERR), clientOpt).toWire(maximumSize));
        }
        if (clientOpt != null && clientOpt.getVersion() != 0) {
            // RFC 6891: an unknown EDNS version is BADVERS, whose upper bits travel in our OPT record.
            Message response = emptyResponse(query, Rcode.BADVERS & 0xF);
            response.addRecord(new OPTRecord(ADVERTISED_UDP_SIZE, Rcode.BADVERS >>> 4, 0, 0), Section.ADDITIONAL);
            return Optional.of(response.toWire(maximumSize));
        }
        Record question = query.getQuestion();
        Optional<Message> response;
        if (question.getDClass() != DClass.IN || question.getType() == Type.AXFR || question.getType() == Type.IXFR) {
            response = answers.inZone(question.getName()) ? Optional.of(emptyResponse(query, Rcode.REFUSED)) : forward(query, mayBlock);
        } else {
            response = switch (answers.lookup(question.getName(), question.getType())) {
                case Lookup.Answer answer -> authoritative(query, answer, mayBlock);
                case Lookup.NoData ignored -> Optional.of(negative(query, Rcode.NOERROR));
                case Lookup.NameError ignored -> Optional.of(negative(query, Rcode.NXDOMAIN));
                case Lookup.NotAuthoritative ignored -> forward(query, mayBlock);
            };
        }
        return response.map(message -> withOpt(message, clientOpt).toWire(maximumSize));
    }

    /** The authoritative response, or empty when its CNAME leads out of the zone and {@code mayBlock} is false. */
    private Optional<Message> authoritative(Message query, Lookup.Answer answer, boolean mayBlock) {
        Message response = emptyResponse(query, Rcode.NOERROR);
        response.getHeader().setFlag(Flags.AA);
        List<Record> records = new ArrayList<>(answer.answers());
        int type = query.getQuestion().getType();
        if (type != Type.CNAME && type != Type.ANY && !records.isEmpty() && records.getLast() instanceof CNAMERecord cname) {
            Optional<List<Record>> chased = chase(cname.getTarget(), type, 1, mayBlock);
            if (chased.isEmpty()) {
                return Optional.empty();
            }
            records.addAll(chased.get());
        }
        records.forEach(record -> response.addRecord(record, Section.ANSWER));
        answer.additional().forEach(record -> response.addRecord(record, Section.ADDITIONAL));
        return Optional.of(response);
    }

    /**
     * Follows an ExternalName's CNAME, as CoreDNS does for A/AAAA queries: in the zone itself, outside it upstream; empty
     * when it must go upstream and {@code mayBlock} is false.
     */
    private Optional<List<Record>> chase(Name target, int type, int depth, boolean mayBlock) {
        if (depth > MAXIMUM_CNAME_CHAIN) {
            return Optional.of(List.of());
        }
        if (answers.inZone(target)) {
            if (answers.lookup(target, type) instanceof Lookup.Answer answer) {
                List<Record> records = new ArrayList<>(answer.answers());
                if (!records.isEmpty() && records.getLast() instanceof CNAMERecord cname) {
                    Optional<List<Record>> chased = chase(cname.getTarget(), type, depth + 1, mayBlock);
                    if (chased.isEmpty()) {
                        return Optional.empty();
                    }
                    records.addAll(chased.get());
                }
                return Optional.of(records);
            }
            return Optional.of(List.of());
        }
        if (!mayBlock) {
            return Optional.empty();
        }
        try {
            Message upstream = forwarder.forward(Message.newQuery(Record.newRecord(target, type, DClass.IN)));
            return Optional.of(upstream.getRcode() == Rcode.NOERROR ? upstream.getSection(Section.ANSWER) : List.of());
        } catch (IOException e) {
            // The client's resolver can still follow the CNAME itself.
            return Optional.of(List.of());
        }
    }

    private Message negative(Message query, int rcode) {
        Message response = emptyResponse(query, rcode);
        response.getHeader().setFlag(Flags.AA);
        response.addRecord(answers.soa(), Section.AUTHORITY);
        return response;
    }

    /** The upstream's response (SERVFAIL when none answers), or empty when {@code mayBlock} is false. */
    private Optional<Message> forward(Message query, boolean mayBlock) {
        if (!mayBlock) {
            return Optional.empty();
        }
        Message upstream;
        try {
            upstream = forwarder.forward(query.clone());
        } catch (IOException e) {
            LOG.debug("no upstream answered {}: {}", query.getQuestion(), e.toString());
            return Optional.of(emptyResponse(query, Rcode.SERVFAIL));
        }
        Message response = upstream.clone();
        response.getHeader().setID(query.getHeader().getID());
        // Our own EDNS0 record replaces the upstream's: it speaks about this hop, not the upstream one.
        OPTRecord upstreamOpt = response.getOPT();
        if (upstreamOpt != null) {
            response.removeRecord(upstreamOpt, Section.ADDITIONAL);
        }
        return Optional.of(response);
    }

    /** An empty response to {@code query} that repeats its ID, opcode, RD bit and question. */
    private static Message emptyResponse(Message query, int rcode) {
        Message response = new Message(query.getHeader().getID());
        Header header = response.getHeader();
        header.setFlag(Flags.QR);
        header.setOpcode(query.getHeader().getOpcode());
        if (query.getHeader().getFlag(Flags.RD)) {
            header.setFlag(Flags.RD);
        }
        header.setFlag(Flags.RA);
        header.setRcode(rcode);
        for (Record question : query.getSection(Section.QUESTION)) {
            response.addRecord(question, Section.QUESTION);
        }
        return response;
    }

    /** A response to a query whose body could not be read: its header only. */
    private static Message error(Header queryHeader, int rcode) {
        Message response = new Message(queryHeader.getID());
        Header header = response.getHeader();
        header.setFlag(Flags.QR);
        header.setOpcode(queryHeader.getOpcode());
        if (queryHeader.getFlag(Flags.RD)) {
            header.setFlag(Flags.RD);
        }
        header.setFlag(Flags.RA);
        header.setRcode(rcode);
        return response;
    }

    private static Message withOpt(Message response, OPTRecord clientOpt) {
        if (clientOpt != null && response.getOPT() == null) {
            response.addRecord(new OPTRecord(ADVERTISED_UDP_SIZE, 0, 0, 0), Section.ADDITIONAL);
        }
        return response;
    }
}
