package io.k4j.dns.server;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.xbill.DNS.Message;

/** A forwarder that answers with a function and remembers what it was asked. */
final class FakeForwarder implements Forwarder {
    private final Function<Message, Message> answer;
    final List<Message> forwarded = new CopyOnWriteArrayList<>();

    FakeForwarder(Function<Message, Message> answer) {
        this.answer = answer;
    }

    static FakeForwarder failing() {
        return new FakeForwarder(query -> null);
    }

    @Override
    public Message forward(Message query) throws IOException {
        forwarded.add(query);
        Message response = answer.apply(query);
        if (response == null) {
            throw new IOException("upstream timed out");
        }
        return response;
    }
}
