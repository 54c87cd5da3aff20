package io.k4j.dns.server;

import java.io.IOException;
import org.xbill.DNS.Message;

/** Sends a query the cluster zone does not answer to resolvers outside it. Implementations are thread-safe. */
public interface Forwarder {
    /**
     * @return the upstream response to {@code query} (its ID may differ from the query's)
     * @throws IOException when no upstream answered in time
     */
    Message forward(Message query) throws IOException;
}
