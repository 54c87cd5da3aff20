package io.k4j.kubelet.prober;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.k4j.kubelet.prober.health.v1.HealthCheckRequest;
import io.k4j.kubelet.prober.health.v1.HealthCheckResponse;
import io.k4j.kubelet.prober.health.v1.HealthGrpc;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * gRPC probes: {@code grpc.health.v1.Health/Check} over plaintext HTTP/2, one channel per probe, as upstream's
 * gRPC prober, with its messages. Thread-safe.
 */
final class GrpcHealthChecker {
    ProbeOutcome check(String host, int port, String service, Duration timeout) throws InterruptedException {
        String address = ContainerPorts.joinHostPort(host, port);
        Instant deadline = Instant.now().plus(timeout);
        ManagedChannel channel = NettyChannelBuilder.forAddress(host, port)
                .usePlaintext()
                .userAgent("kube-probe/" + HttpGetRequest.KUBERNETES_VERSION)
                .build();
        try {
            if (!awaitReady(channel, deadline)) {
                return ProbeOutcome.failure("timeout: failed to connect service \"" + address + "\" within " + GoDurations.format(timeout)
                        + ": context deadline exceeded");
            }
            long remaining = Math.max(1, Duration.between(Instant.now(), deadline).toMillis());
            HealthCheckResponse response = HealthGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(remaining, TimeUnit.MILLISECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(service).build());
            if (response.getStatus() != HealthCheckResponse.ServingStatus.SERVING) {
                return ProbeOutcome.failure("service unhealthy (responded with \"" + response.getStatus().name() + "\")");
            }
            return ProbeOutcome.success("service is healthy");
        } catch (StatusRuntimeException e) {
            Status status = e.getStatus();
            return switch (status.getCode()) {
                case UNIMPLEMENTED -> ProbeOutcome.failure(
                        "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): " + nullToEmpty(status.getDescription()));
                case DEADLINE_EXCEEDED -> ProbeOutcome.failure("timeout: health rpc did not complete within " + GoDurations.format(timeout));
                default -> ProbeOutcome.failure("error: health rpc probe failed: rpc error: code = " + goCodeName(status.getCode())
                        + " desc = " + nullToEmpty(status.getDescription()));
            };
        } finally {
            channel.shutdownNow();
        }
    }

    /** Waits for the channel to connect (upstream dials with WithBlock), failing fast on nothing but the deadline. */
    private static boolean awaitReady(ManagedChannel channel, Instant deadline) throws InterruptedException {
        while (true) {
            ConnectivityState state = channel.getState(true);
            if (state == ConnectivityState.READY) {
                return true;
            }
            long remaining = Duration.between(Instant.now(), deadline).toMillis();
            if (remaining <= 0) {
                return false;
            }
            CountDownLatch changed = new CountDownLatch(1);
            channel.notifyWhenStateChanged(state, changed::countDown);
            if (!changed.await(remaining, TimeUnit.MILLISECONDS)) {
                return false;
            }
        }
    }

    /** gRPC-Go's names of status codes ({@code Unavailable}, {@code DeadlineExceeded}). */
    private static String goCodeName(Status.Code code) {
        StringBuilder name = new StringBuilder();
        for (String part : code.name().split("_")) {
            name.append(part.charAt(0)).append(part.substring(1).toLowerCase(java.util.Locale.ROOT));
        }
        return name.toString();
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
