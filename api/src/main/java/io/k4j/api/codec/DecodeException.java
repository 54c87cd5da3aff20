package io.k4j.api.codec;

/**
 * A body that could not be decoded. The message is upstream's (Go's) explanation, for example
 * {@code couldn't get version/kind; json parse error: unexpected end of JSON input}; callers put it into the
 * 400 response they send. Unchecked, without a stack trace: it is a user error, not a bug.
 */
public final class DecodeException extends RuntimeException {
    public DecodeException(String message) {
        super(message, null, true, false);
    }

    public DecodeException(String message, Throwable cause) {
        super(message, cause, true, false);
    }
}
