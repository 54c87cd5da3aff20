package io.k4j.apiserver.spdy;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Reads and writes SPDY/3.1 frames (the SPDY/3 draft, section 2) on a byte stream: an 8-byte frame header, data frames
 * by stream id, control frames by type, and header blocks compressed with one zlib stream per direction that is primed
 * with {@link SpdyHeaderDictionary} and flushed after every block.
 *
 * <p>Not thread-safe: one thread reads; writes are serialised by the caller.
 */
public final class SpdyFramer {
    static final int VERSION = 3;
    static final int SYN_STREAM = 1;
    static final int SYN_REPLY = 2;
    static final int RST_STREAM = 3;
    static final int PING = 6;
    static final int GOAWAY = 7;
    static final int HEADERS = 8;
    /** The largest payload a frame's 24-bit length can describe. */
    static final int MAX_FRAME_LENGTH = (1 << 24) - 1;
    /** A header block larger than this when decompressed is refused rather than buffered. */
    private static final int MAX_HEADER_BLOCK_BYTES = 1024 * 1024;

    private final DataInputStream input;
    private final OutputStream output;
    private final Deflater compressor = new Deflater(Deflater.BEST_COMPRESSION);
    private final Inflater decompressor = new Inflater();

    public SpdyFramer(InputStream input, OutputStream output) {
        this.input = new DataInputStream(requireNonNull(input, "input is null"));
        this.output = requireNonNull(output, "output is null");
        compressor.setDictionary(SpdyHeaderDictionary.bytes());
    }

    /** The next frame; empty at the end of the stream between frames. */
    public Optional<SpdyFrame> read() throws IOException {
        int first = input.read();
        if (first < 0) {
            return Optional.empty();
        }
        byte[] rest = new byte[7];
        input.readFully(rest);
        ByteBuffer header = ByteBuffer.allocate(8).put((byte) first).put(rest).flip();
        int word = header.getInt();
        int flags = header.get() & 0xff;
        int length = ((header.get() & 0xff) << 16) | ((header.get() & 0xff) << 8) | (header.get() & 0xff);
        byte[] payload = new byte[length];
        input.readFully(payload);
        if ((word & 0x80000000) == 0) {
            return Optional.of(new SpdyFrame.Data(word & 0x7fffffff, (flags & SpdyFrame.FLAG_FIN) != 0, payload));
        }
        int version = (word >>> 16) & 0x7fff;
        int type = word & 0xffff;
        if (version != VERSION) {
            throw new SpdyProtocolException("unsupported SPDY version " + version);
        }
        ByteBuffer body = ByteBuffer.wrap(payload);
        try {
            return Optional.of(switch (type) {
                case SYN_STREAM -> {
                    int streamId = body.getInt() & 0x7fffffff;
                    int associated = body.getInt() & 0x7fffffff;
                    int priority = (body.get() & 0xff) >>> 5;
                    body.get();
                    yield new SpdyFrame.SynStream(streamId, associated, priority, flags, decodeHeaders(remaining(body)));
                }
                case SYN_REPLY -> new SpdyFrame.SynReply(body.getInt() & 0x7fffffff, flags, decodeHeaders(remaining(body)));
                case HEADERS -> new SpdyFrame.Headers(body.getInt() & 0x7fffffff, flags, decodeHeaders(remaining(body)));
                case RST_STREAM -> new SpdyFrame.RstStream(body.getInt() & 0x7fffffff, body.getInt());
                case PING -> new SpdyFrame.Ping(body.getInt());
                case GOAWAY -> new SpdyFrame.GoAway(body.getInt() & 0x7fffffff, body.remaining() >= 4 ? body.getInt() : 0);
                default -> new SpdyFrame.Other(type, flags, payload);
            });
        } catch (java.nio.BufferUnderflowException e) {
            throw new SpdyProtocolException("control frame of type " + type + " is too short");
        }
    }

    /** Writes one frame and flushes it. */
    public void write(SpdyFrame frame) throws IOException {
        switch (frame) {
            case SpdyFrame.Data data -> {
                if (data.payload().length > MAX_FRAME_LENGTH) {
                    throw new IllegalArgumentException("a data frame carries at most " + MAX_FRAME_LENGTH + " bytes");
                }
                writeFrame(data.streamId() & 0x7fffffff, data.fin() ? SpdyFrame.FLAG_FIN : 0, data.payload());
            }
            case SpdyFrame.SynStream syn -> {
                byte[] headers = encodeHeaders(syn.headers());
                ByteBuffer body = ByteBuffer.allocate(10 + headers.length)
                        .putInt(syn.streamId()).putInt(syn.associatedStreamId()).put((byte) (syn.priority() << 5)).put((byte) 0).put(headers);
                writeControl(SYN_STREAM, syn.flags(), body.array());
            }
            case SpdyFrame.SynReply reply -> {
                byte[] headers = encodeHeaders(reply.headers());
                writeControl(SYN_REPLY, reply.flags(), ByteBuffer.allocate(4 + headers.length).putInt(reply.streamId()).put(headers).array());
            }
            case SpdyFrame.Headers more -> {
                byte[] headers = encodeHeaders(more.headers());
                writeControl(HEADERS, more.flags(), ByteBuffer.allocate(4 + headers.length).putInt(more.streamId()).put(headers).array());
            }
            case SpdyFrame.RstStream reset -> writeControl(RST_STREAM, 0, ByteBuffer.allocate(8).putInt(reset.streamId()).putInt(reset.status()).array());
            case SpdyFrame.Ping ping -> writeControl(PING, 0, ByteBuffer.allocate(4).putInt(ping.id()).array());
            case SpdyFrame.GoAway goAway -> writeControl(GOAWAY, 0, ByteBuffer.allocate(8).putInt(goAway.lastGoodStreamId()).putInt(goAway.status()).array());
            case SpdyFrame.Other other -> writeControl(other.type(), other.flags(), other.payload());
        }
    }

    private void writeControl(int type, int flags, byte[] payload) throws IOException {
        writeFrame(0x80000000 | (VERSION << 16) | type, flags, payload);
    }

    private void writeFrame(int word, int flags, byte[] payload) throws IOException {
        byte[] frame = new byte[8 + payload.length];
        ByteBuffer.wrap(frame).putInt(word).putInt((flags << 24) | payload.length).put(payload);
        output.write(frame);
        output.flush();
    }

    private static byte[] remaining(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private byte[] encodeHeaders(Map<String, List<String>> headers) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.writeBytes(ByteBuffer.allocate(4).putInt(headers.size()).array());
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            writeString(block, header.getKey().toLowerCase(Locale.ROOT));
            writeString(block, String.join("\0", header.getValue()));
        }
        compressor.setInput(block.toByteArray());
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        while (true) {
            int count = compressor.deflate(buffer, 0, buffer.length, Deflater.SYNC_FLUSH);
            compressed.write(buffer, 0, count);
            if (count < buffer.length && compressor.needsInput()) {
                break;
            }
        }
        return compressed.toByteArray();
    }

    private static void writeString(ByteArrayOutputStream block, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        block.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
        block.writeBytes(bytes);
    }

    private Map<String, List<String>> decodeHeaders(byte[] compressed) throws IOException {
        decompressor.setInput(compressed);
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            while (true) {
                int count = decompressor.inflate(buffer);
                if (count == 0) {
                    if (decompressor.needsDictionary()) {
                        decompressor.setDictionary(SpdyHeaderDictionary.bytes());
                        continue;
                    }
                    if (decompressor.needsInput() || decompressor.finished()) {
                        break;
                    }
                }
                block.write(buffer, 0, count);
                if (block.size() > MAX_HEADER_BLOCK_BYTES) {
                    throw new SpdyProtocolException("header block larger than " + MAX_HEADER_BLOCK_BYTES + " bytes");
                }
            }
        } catch (DataFormatException e) {
            throw new SpdyProtocolException("invalid compressed header block: " + e.getMessage());
        }
        ByteBuffer headers = ByteBuffer.wrap(block.toByteArray());
        try {
            int count = headers.getInt();
            if (count < 0 || count > headers.remaining() / 8) {
                throw new SpdyProtocolException("invalid header count " + count);
            }
            Map<String, List<String>> decoded = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = readString(headers);
                String value = readString(headers);
                List<String> values = decoded.computeIfAbsent(name.toLowerCase(Locale.ROOT), key -> new ArrayList<>());
                values.addAll(Arrays.asList(value.split("\0", -1)));
            }
            decoded.replaceAll((name, values) -> List.copyOf(values));
            return decoded;
        } catch (java.nio.BufferUnderflowException e) {
            throw new SpdyProtocolException("truncated header block");
        }
    }

    private static String readString(ByteBuffer buffer) throws SpdyProtocolException {
        int length = buffer.getInt();
        if (length < 0 || length > buffer.remaining()) {
            throw new SpdyProtocolException("invalid header length " + length);
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Releases the zlib streams. */
    public void release() {
        compressor.end();
        decompressor.end();
    }

    /** The peer broke the SPDY framing rules. */
    public static final class SpdyProtocolException extends IOException {
        public SpdyProtocolException(String message) {
            super(message);
        }
    }
}
