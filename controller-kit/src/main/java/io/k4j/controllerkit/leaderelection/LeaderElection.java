package io.k4j.controllerkit.leaderelection;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a {@code coordination.k8s.io} Lease in kube-system, with upstream's component defaults (15 s
 * lease, 10 s renew deadline, 2 s retry). Only the leader runs the guarded work, so two servers of one cluster never
 * reconcile the same objects at once. Thread-safe.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("leaderelection");
    public static final String NAMESPACE = "kube-system";
    public static final Duration LEASE_DURATION = Duration.ofSeconds(15);
    public static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);
    public static final Duration RETRY_PERIOD = Duration.ofSeconds(2);

    private final CompletableFuture<?> election;

    private LeaderElection(CompletableFuture<?> election) {
        this.election = election;
    }

    /**
     * Starts campaigning for {@code leaseName}; {@code onStartedLeading} runs once this process leads and
     * {@code onStoppedLeading} if it loses the lease (the caller should then stop its work, as upstream exits).
     *
     * @param identity this candidate's identity; a stable one (e.g. the host name) lets a restarted server take its
     *     own lease back at once instead of waiting for it to expire
     */
    public static LeaderElection start(KubernetesClient client, String leaseName, String identity, Runnable onStartedLeading, Runnable onStoppedLeading) {
        requireNonNull(client, "client is null");
        requireNonNull(leaseName, "leaseName is null");
        requireNonNull(identity, "identity is null");
        CompletableFuture<?> election = client.leaderElector()
                .withConfig(new LeaderElectionConfigBuilder()
                        .withName(leaseName)
                        .withLock(new LeaseUpdateLock(NAMESPACE, leaseName, identity))
                        .withLeaseDuration(LEASE_DURATION)
                        .withRenewDeadline(RENEW_DEADLINE)
                        .withRetryPeriod(RETRY_PERIOD)
                        .withReleaseOnCancel(true)
                        .withLeaderCallbacks(new LeaderCallbacks(
                                () -> {
                                    LOG.info("{}: {} became leader", leaseName, identity);
                                    onStartedLeading.run();
                                },
                                () -> {
                                    LOG.info("{}: {} stopped leading", leaseName, identity);
                                    onStoppedLeading.run();
                                },
                                leader -> LOG.debug("{}: new leader {}", leaseName, leader)))
                        .build())
                .build()
                .start();
        return new LeaderElection(election);
    }

    /** Gives the lease up (released, so another candidate need not wait for it to expire). */
    @Override
    public void close() {
        election.cancel(true);
    }
}
