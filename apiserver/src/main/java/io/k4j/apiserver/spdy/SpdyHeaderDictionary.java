package io.k4j.apiserver.spdy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The preset zlib dictionary of SPDY/3 header blocks (SPDY/3 draft, section 2.6.10.1): common header names and values,
 * each behind its 32-bit length, then a run of status codes, reason phrases and common value fragments. Both ends
 * must use exactly these 1423 bytes or the first header block cannot be decompressed.
 */
final class SpdyHeaderDictionary {
    private static final List<String> LENGTH_PREFIXED = List.of(
            "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding",
            "accept-language", "accept-ranges", "age", "allow", "authorization", "cache-control", "connection",
            "content-base", "content-encoding", "content-language", "content-length", "content-location", "content-md5",
            "content-range", "content-type", "date", "etag", "expect", "expires", "from", "host", "if-match",
            "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "last-modified", "location",
            "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer", "retry-after",
            "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary", "via", "warning",
            "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1", "url", "public",
            "set-cookie", "keep-alive", "origin");
    private static final String TRAILER = "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
            + "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized"
            + "403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable"
            + "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
            + "chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,"
            + "text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

    private static final byte[] BYTES = build();

    private SpdyHeaderDictionary() {}

    /** A fresh copy of the dictionary. */
    static byte[] bytes() {
        return BYTES.clone();
    }

    private static byte[] build() {
        ByteArrayOutputStream dictionary = new ByteArrayOutputStream();
        for (String word : LENGTH_PREFIXED) {
            byte[] bytes = word.getBytes(StandardCharsets.US_ASCII);
            dictionary.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
            dictionary.writeBytes(bytes);
        }
        dictionary.writeBytes(TRAILER.getBytes(StandardCharsets.US_ASCII));
        return dictionary.toByteArray();
    }
}
