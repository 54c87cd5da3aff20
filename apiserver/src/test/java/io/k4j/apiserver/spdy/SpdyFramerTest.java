package io.k4j.apiserver.spdy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SpdyFramerTest {
    @Test
    void theHeaderDictionaryIsTheSpecsExactBytes() throws Exception {
        byte[] dictionary = SpdyHeaderDictionary.bytes();
        assertThat(dictionary).hasSize(1423);
        // The SHA-256 of the SPDY/3 dictionary as spdystream (client-go's SPDY) uses it.
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(dictionary)))
                .isEqualTo("51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02");
    }

    @Test
    void framesRoundTripWithOneCompressionStreamPerDirection() throws Exception {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        SpdyFramer writer = new SpdyFramer(new ByteArrayInputStream(new byte[0]), wire);
        List<SpdyFrame> frames = List.of(
                new SpdyFrame.SynStream(1, 0, 0, 0, Map.of("streamtype", List.of("error"))),
                new SpdyFrame.SynStream(3, 0, 0, SpdyFrame.FLAG_FIN, Map.of("streamtype", List.of("stdin"), "port", List.of("80", "81"))),
                new SpdyFrame.SynReply(2, 0, Map.of()),
                new SpdyFrame.Data(3, true, "hello".getBytes()),
                new SpdyFrame.RstStream(5, SpdyFrame.CANCEL),
                new SpdyFrame.Ping(7),
                new SpdyFrame.GoAway(3, 0));
        for (SpdyFrame frame : frames) {
            writer.write(frame);
        }
        SpdyFramer reader = new SpdyFramer(new ByteArrayInputStream(wire.toByteArray()), new ByteArrayOutputStream());
        assertThat(reader.read().orElseThrow()).isEqualTo(frames.get(0));
        assertThat(reader.read().orElseThrow()).isEqualTo(frames.get(1));
        assertThat(reader.read().orElseThrow()).isEqualTo(frames.get(2));
        SpdyFrame.Data data = (SpdyFrame.Data) reader.read().orElseThrow();
        assertThat(data.streamId()).isEqualTo(3);
        assertThat(data.fin()).isTrue();
        assertThat(new String(data.payload())).isEqualTo("hello");
        assertThat(reader.read().orElseThrow()).isEqualTo(frames.get(4));
        assertThat(reader.read().orElseThrow()).isEqualTo(frames.get(5));
        assertThat(reader.read().orElseThrow()).isEqualTo(frames.get(6));
        assertThat(reader.read()).isEmpty();
    }

    @Test
    void controlFramesCarryVersionThreeAndTheirType() throws Exception {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        new SpdyFramer(new ByteArrayInputStream(new byte[0]), wire).write(new SpdyFrame.Ping(1));
        assertThat(wire.toByteArray()).containsExactly(0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1);
    }
}
