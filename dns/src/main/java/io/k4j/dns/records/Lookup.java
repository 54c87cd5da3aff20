package io.k4j.dns.records;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.xbill.DNS.Record;

/** The outcome of looking a question up in the cluster's zones. */
public sealed interface Lookup {
    /** Records for the question (NOERROR, authoritative), and records that help the client (glue for SRV targets). */
    record Answer(List<Record> answers, List<Record> additional) implements Lookup {
        public Answer {
            answers = List.copyOf(requireNonNull(answers, "answers is null"));
            additional = List.copyOf(requireNonNull(additional, "additional is null"));
        }
    }

    /** The name exists with other types only: NOERROR, no answer, the zone's SOA as authority. */
    record NoData() implements Lookup {}

    /** The name does not exist in the zone: NXDOMAIN with the zone's SOA as authority. */
    record NameError() implements Lookup {}

    /** Not ours to answer (outside the zones, or a reverse address we do not know): forward it. */
    record NotAuthoritative() implements Lookup {}
}
