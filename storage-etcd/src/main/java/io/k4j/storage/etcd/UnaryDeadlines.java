package io.k4j.storage.etcd;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;

/**
 * Gives every unary etcd request (reads, writes, transactions, lease grants) a gRPC deadline, so that the store's
 * callers wait for the answer without a timer of their own. A timed wait on a virtual thread schedules its wake-up on
 * the JDK's delay scheduler and cancels it when the answer comes, waking that scheduler's thread both times: in the
 * apiserver suite's 64-client etcd run that was about a tenth of the server's CPU. gRPC's deadline timer lives on the
 * network thread that carries the call. Streams (watches, lease keep-alives) last as long as the store and get none.
 */
final class UnaryDeadlines implements ClientInterceptor {
    private final long timeoutNanos;

    UnaryDeadlines(Duration timeout) {
        requireNonNull(timeout, "timeout is null");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        if (method.getType() != MethodDescriptor.MethodType.UNARY || options.getDeadline() != null) {
            return next.newCall(method, options);
        }
        return next.newCall(method, options.withDeadlineAfter(timeoutNanos, TimeUnit.NANOSECONDS));
    }
}
