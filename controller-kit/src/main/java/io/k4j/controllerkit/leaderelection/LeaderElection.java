package io.k4j.controllerkit.leaderelection;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

    private final KubernetesClient client;
    private final String leaseName;
    private final String identity;
    private final Runnable onStartedLeading;
    private final Runnable onStoppedLeading;
    private CompletableFuture<?> election;
    private boolean closed;

    private LeaderElection(KubernetesClient client, String leaseName, String identity, Runnable onStartedLeading, Runnable onStoppedLeading) {
        this.client = client;
        this.leaseName = leaseName;
        this.identity = identity;
        this.onStartedLeading = onStartedLeading;
        this.onStoppedLeading = onStoppedLeading;
    }

    /**
     * Starts campaigning for {@code leaseName}; {@code onStartedLeading} runs each time this process becomes the
     * leader and {@code onStoppedLeading} each time it loses the lease (the caller then stops its work). After a loss
     * it campaigns again, as a supervisor restarts upstream's components, which exit when they lose their lease: a
     * renewal that timed out on a busy machine must not leave the cluster without controllers.
     *
     * @param identity this candidate's identity; a stable one (e.g. the host name) lets a restarted server take its
     *     own lease back at once instead of waiting for it to expire
     */
    public static LeaderElection start(KubernetesClient client, String leaseName, String identity, Runnable onStartedLeading, Runnable onStoppedLeading) {
        requireNonNull(client, "client is null");
        requireNonNull(leaseName, "leaseName is null");
        requireNonNull(identity, "identity is null");
        requireNonNull(onStartedLeading, "onStartedLeading is null");
        requireNonNull(onStoppedLeading, "onStoppedLeading is null");
        LeaderElection leaderElection = new LeaderElection(client, leaseName, identity, onStartedLeading, onStoppedLeading);
        leaderElection.campaign();
        return leaderElection;
    }

    private synchronized void campaign() {
        if (closed) {
            return;
        }
        CompletableFuture<?> current = client.leaderElector()
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
        election = current;
        current.whenComplete((ignored, error) -> {
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            LOG.info("{}: {} campaigns again in {} s", leaseName, identity, RETRY_PERIOD.toSeconds());
            CompletableFuture.delayedExecutor(RETRY_PERIOD.toMillis(), TimeUnit.MILLISECONDS).execute(this::campaign);
        });
    }

    /** Gives the lease up (released, so another candidate need not wait for it to expire) and stops campaigning. */
    @Override
    public void close() {
        CompletableFuture<?> current;
        synchronized (this) {
            closed = true;
            current = election;
        }
        if (current != null) {
            current.cancel(true);
        }
    }
}
