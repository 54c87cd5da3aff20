package io.k4j.storage.etcd;

import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import io.etcd.jetcd.common.exception.ClosedClientException;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.lease.NoSuchLeaseException;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.k4j.storage.StorageException;

/**
 * Recognises etcd's errors. etcd reports them as gRPC statuses whose descriptions are stable strings
 * ({@code rpctypes} in etcd); jetcd passes them on as {@link EtcdException}s with the description as message.
 *
 * <p>Stateless and thread-safe.
 */
final class EtcdErrors {
    private static final String COMPACTED = "required revision has been compacted";
    private static final String FUTURE_REVISION = "required revision is a future revision";
    private static final String LEASE_NOT_FOUND = "requested lease not found";
    private static final String REQUEST_TOO_LARGE = "request is too large";
    /** gRPC's own limit, which etcd sets 512 KiB above its request limit. */
    private static final String MESSAGE_TOO_LARGE = "received message larger than max";

    private EtcdErrors() {}

    /** Strips the wrappers that futures add around the failure jetcd reported. */
    static Throwable unwrap(Throwable failure) {
        Throwable current = failure;
        while ((current instanceof CompletionException || current instanceof ExecutionException) && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    static boolean isCompacted(Throwable failure) {
        return messageContains(failure, COMPACTED);
    }

    static boolean isFutureRevision(Throwable failure) {
        return messageContains(failure, FUTURE_REVISION);
    }

    static boolean isLeaseNotFound(Throwable failure) {
        return failure instanceof NoSuchLeaseException || messageContains(failure, LEASE_NOT_FOUND);
    }

    static boolean isRequestTooLarge(Throwable failure) {
        return messageContains(failure, REQUEST_TOO_LARGE) || messageContains(failure, MESSAGE_TOO_LARGE);
    }

    /**
     * The failure as the SPI's catch-all: whatever etcd did not answer with a result or one of the errors the
     * operations recognise themselves. Timeouts, lost connections, lost leaders and a closed client all mean the
     * request may or may not have been applied, and retrying may succeed.
     */
    static StorageException.Unavailable unavailable(String operation, Throwable failure) {
        Throwable cause = unwrap(failure);
        String reason = switch (cause) {
            case TimeoutException timeout -> "timed out";
            case ClosedClientException closed -> "the etcd client is closed";
            case CancellationException cancelled -> "cancelled";
            default -> describe(cause);
        };
        return new StorageException.Unavailable("etcd " + operation + " failed: " + reason, cause);
    }

    private static String describe(Throwable cause) {
        Status status = switch (cause) {
            case StatusRuntimeException statusException -> statusException.getStatus();
            case StatusException statusException -> statusException.getStatus();
            default -> null;
        };
        if (status != null) {
            return status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription());
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    private static boolean messageContains(Throwable failure, String text) {
        for (Throwable current = unwrap(failure); current != null; current = current.getCause()) {
            String message = current.getMessage();
            if (message != null && message.toLowerCase(Locale.ROOT).contains(text)) {
                return true;
            }
            if (current.getCause() == current) {
                break;
            }
        }
        return false;
    }
}
