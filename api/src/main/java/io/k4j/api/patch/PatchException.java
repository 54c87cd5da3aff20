package io.k4j.api.patch;

/**
 * A patch operation that does not apply, with the reason in the words of upstream's patch library. Upstream
 * answers such failures with a generic 422 (see {@link JsonPatch#apply}); the reason is for logs and tests.
 * Unchecked, without a stack trace: it is a user error.
 */
public final class PatchException extends RuntimeException {
    public PatchException(String message) {
        super(message, null, true, false);
    }
}
