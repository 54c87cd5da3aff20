package io.k4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.dns.records.ClusterAnswers;
import io.k4j.dns.server.Forwarder;
import io.k4j.dns.server.QueryHandler;
import io.k4j.dns.server.Reply;
import io.k4j.dns.server.Transport;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

class DnsBenchTest {
    @Test
    void everyQueryOfTheMixIsAnsweredFromTheIndexWithTheRcodeTheBenchmarkReports() throws Exception {
        Forwarder noUpstream = query -> {
            throw new IOException("the benchmark's queries never leave the cluster zone");
        };
        QueryHandler handler = new QueryHandler(new ClusterAnswers(DnsBench.index(), "cluster.local", Duration.ofSeconds(5), Optional.empty()), noUpstream);
        List<String[]> queries = DnsBench.queries();

        assertThat(queries).hasSize(2048);
        for (int i = 0; i < queries.size(); i++) {
            String[] query = queries.get(i);
            Message wire = Message.newQuery(Record.newRecord(Name.fromString(query[0] + "."), Type.value(query[1]), DClass.IN));
            Reply reply = handler.reply(wire.toWire(), Transport.UDP);

            assertThat(reply).as(query[0]).isInstanceOf(Reply.Answer.class);
            Message response = new Message(((Reply.Answer) reply).packet());
            if (i % 4 == 3) {
                assertThat(response.getRcode()).as(query[0]).isEqualTo(Rcode.NXDOMAIN);
            } else {
                assertThat(response.getRcode()).as(query[0]).isEqualTo(Rcode.NOERROR);
                assertThat(response.getSection(Section.ANSWER)).as(query[0]).hasSize(i % 4 == 1 ? 10 : 1);
            }
        }
    }
}
