package io.k4j.kubelet.nodestatus;

import java.time.Duration;

/**
 * The kubelet's heartbeat timing, as upstream's defaults: the node Lease lasts 40 s and is renewed every quarter of
 * that (10 s); the node status is computed every 10 s but written only when it changed or when
 * {@code nodeStatusReportFrequency} (5 min) passed since the last write. A failed Lease renewal is retried with an
 * exponential backoff from 200 ms up to 7 s, as the kubelet's lease controller does.
 */
public final class NodeHeartbeat {
    /** Where node Leases live. */
    public static final String LEASE_NAMESPACE = "kube-node-lease";
    /** {@code nodeLeaseDurationSeconds}. */
    public static final int LEASE_DURATION_SECONDS = 40;
    /** The kubelet renews its Lease every quarter of the Lease's duration. */
    public static final Duration LEASE_RENEW_INTERVAL = Duration.ofSeconds(LEASE_DURATION_SECONDS).dividedBy(4);
    /** {@code nodeStatusUpdateFrequency}: how often the status is computed and compared. */
    public static final Duration NODE_STATUS_UPDATE_FREQUENCY = Duration.ofSeconds(10);
    /** {@code nodeStatusReportFrequency}: an unchanged status is still written this often. */
    public static final Duration NODE_STATUS_REPORT_FREQUENCY = Duration.ofMinutes(5);
    /** The first retry delay after a failed Lease renewal. */
    public static final Duration LEASE_RETRY_INITIAL = Duration.ofMillis(200);
    /** The longest retry delay after failed Lease renewals. */
    public static final Duration LEASE_RETRY_MAX = Duration.ofSeconds(7);

    private NodeHeartbeat() {}

    /** The delay before the next attempt after {@code consecutiveFailures} failed renewals (at least 1). */
    public static Duration leaseRetryDelay(int consecutiveFailures) {
        if (consecutiveFailures < 1) {
            throw new IllegalArgumentException("consecutiveFailures must be positive: " + consecutiveFailures);
        }
        Duration delay = LEASE_RETRY_INITIAL;
        for (int failure = 1; failure < consecutiveFailures && delay.compareTo(LEASE_RETRY_MAX) < 0; failure++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(LEASE_RETRY_MAX) > 0 ? LEASE_RETRY_MAX : delay;
    }
}
