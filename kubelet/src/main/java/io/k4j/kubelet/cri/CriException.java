package io.k4j.kubelet.cri;

import static java.util.Objects.requireNonNull;

/**
 * A CRI call that failed: the runtime answered with a gRPC error, or the call timed out or could not reach the
 * runtime. The message reads as upstream's kubelet shows runtime errors
 * ({@code rpc error: code = NotFound desc = …}), because that text ends up in pod statuses and events.
 */
public final class CriException extends RuntimeException {
    /** The gRPC status codes, named as Go's {@code codes.Code} prints them. */
    public enum Code {
        OK("OK"),
        CANCELLED("Canceled"),
        UNKNOWN("Unknown"),
        INVALID_ARGUMENT("InvalidArgument"),
        DEADLINE_EXCEEDED("DeadlineExceeded"),
        NOT_FOUND("NotFound"),
        ALREADY_EXISTS("AlreadyExists"),
        PERMISSION_DENIED("PermissionDenied"),
        RESOURCE_EXHAUSTED("ResourceExhausted"),
        FAILED_PRECONDITION("FailedPrecondition"),
        ABORTED("Aborted"),
        OUT_OF_RANGE("OutOfRange"),
        UNIMPLEMENTED("Unimplemented"),
        INTERNAL("Internal"),
        UNAVAILABLE("Unavailable"),
        DATA_LOSS("DataLoss"),
        UNAUTHENTICATED("Unauthenticated");

        private final String goName;

        Code(String goName) {
            this.goName = goName;
        }

        /** The name as upstream prints it in error messages. */
        public String goName() {
            return goName;
        }
    }

    private final Code code;
    private final String description;

    public CriException(Code code, String description) {
        this(code, description, null);
    }

    public CriException(Code code, String description, Throwable cause) {
        super("rpc error: code = " + requireNonNull(code, "code is null").goName() + " desc = "
                + requireNonNull(description, "description is null"), cause);
        this.code = code;
        this.description = description;
    }

    public Code code() {
        return code;
    }

    /** The runtime's own message, without the {@code rpc error} prefix. */
    public String description() {
        return description;
    }

    /** Whether the object the call named does not exist (a container or sandbox already removed). */
    public boolean isNotFound() {
        return code == Code.NOT_FOUND;
    }
}
