package io.k4j.dns.server;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a query handler makes of one query packet without waiting on anything: a response, no response at all, or a
 * response that needs a resolver outside the cluster and so must be completed where blocking is fine. This lets the
 * server answer the cluster zone on the thread that received the packet and move only forwarded queries to threads
 * of their own. Immutable.
 */
public sealed interface Reply {
    /** A packet that deserves no response (too short to carry an ID, or itself a response). */
    static Reply none() {
        return None.INSTANCE;
    }

    /** The response packet, ready to send. */
    static Reply answer(byte[] packet) {
        return new Answer(packet);
    }

    /** The response is known only after {@code completion} (which may block, e.g. on an upstream resolver) returns. */
    static Reply deferred(Supplier<Optional<byte[]>> completion) {
        return new Deferred(completion);
    }

    /** No response. */
    enum None implements Reply {
        INSTANCE
    }

    /** A response computed without waiting. */
    record Answer(byte[] packet) implements Reply {
        public Answer {
            requireNonNull(packet, "packet is null");
        }
    }

    /**
     * A response that needs a blocking step. {@link #complete()} never throws: failures become a response such as
     * SERVFAIL, or none.
     */
    record Deferred(Supplier<Optional<byte[]>> completion) implements Reply {
        public Deferred {
            requireNonNull(completion, "completion is null");
        }

        /** Runs the blocking step and returns the response packet, if any. */
        public Optional<byte[]> complete() {
            return completion.get();
        }
    }
}
