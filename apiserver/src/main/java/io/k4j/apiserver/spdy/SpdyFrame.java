package io.k4j.apiserver.spdy;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * One SPDY/3.1 frame, as {@link SpdyFramer} reads and writes it. Header names are lower case; a header with several
 * values is sent as one value with NUL separators, as SPDY/3 requires.
 */
public sealed interface SpdyFrame {
    int FLAG_FIN = 0x01;
    int FLAG_UNIDIRECTIONAL = 0x02;

    /** Stream payload; {@code fin} ends the sender's half of the stream. */
    record Data(int streamId, boolean fin, byte[] payload) implements SpdyFrame {
        public Data {
            requireNonNull(payload, "payload is null");
        }
    }

    /** Opens a stream. */
    record SynStream(int streamId, int associatedStreamId, int priority, int flags, Map<String, List<String>> headers) implements SpdyFrame {
        public SynStream {
            headers = Map.copyOf(requireNonNull(headers, "headers is null"));
        }
    }

    /** Accepts a stream the peer opened. */
    record SynReply(int streamId, int flags, Map<String, List<String>> headers) implements SpdyFrame {
        public SynReply {
            headers = Map.copyOf(requireNonNull(headers, "headers is null"));
        }
    }

    /** Ends a stream abnormally. */
    record RstStream(int streamId, int status) implements SpdyFrame {}

    /** More headers on an open stream. */
    record Headers(int streamId, int flags, Map<String, List<String>> headers) implements SpdyFrame {
        public Headers {
            headers = Map.copyOf(requireNonNull(headers, "headers is null"));
        }
    }

    record Ping(int id) implements SpdyFrame {}

    /** The peer accepts no new streams; streams up to {@code lastGoodStreamId} are still served. */
    record GoAway(int lastGoodStreamId, int status) implements SpdyFrame {}

    /**
     * Any other control frame (SETTINGS, WINDOW_UPDATE, CREDENTIAL): read and passed on, so the connection can ignore
     * it. Upstream's implementation (spdystream) does no flow control, so neither end needs window updates.
     */
    record Other(int type, int flags, byte[] payload) implements SpdyFrame {
        public Other {
            requireNonNull(payload, "payload is null");
        }
    }

    /** RST_STREAM status codes (SPDY/3 section 2.6.3). */
    int PROTOCOL_ERROR = 1;
    int INVALID_STREAM = 2;
    int REFUSED_STREAM = 3;
    int CANCEL = 5;
    int INTERNAL_ERROR = 6;
}
