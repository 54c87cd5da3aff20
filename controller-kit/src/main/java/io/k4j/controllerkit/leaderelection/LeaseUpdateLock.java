package io.k4j.controllerkit.leaderelection;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;

/**
 * A Lease lock that writes with get and update (PUT with the read resourceVersion), as client-go's
 * {@code LeaseLock} does. fabric8's own lock patches, which upstream's bootstrap roles for the control-plane
 * components do not allow (they grant get and update on their lease only). Thread-safe.
 */
final class LeaseUpdateLock implements Lock {
    private final String namespace;
    private final String name;
    private final String identity;
    private Lease observed;

    LeaseUpdateLock(String namespace, String name, String identity) {
        this.namespace = requireNonNull(namespace, "namespace is null");
        this.name = requireNonNull(name, "name is null");
        this.identity = requireNonNull(identity, "identity is null");
    }

    @Override
    public synchronized LeaderElectionRecord get(KubernetesClient client) {
        Lease lease = client.leases().inNamespace(namespace).withName(name).get();
        observed = lease;
        if (lease == null || lease.getSpec() == null) {
            return null;
        }
        Integer seconds = lease.getSpec().getLeaseDurationSeconds();
        Integer transitions = lease.getSpec().getLeaseTransitions();
        return new LeaderElectionRecord(lease.getSpec().getHolderIdentity(), Duration.ofSeconds(seconds == null ? 0 : seconds),
                lease.getSpec().getAcquireTime(), lease.getSpec().getRenewTime(), transitions == null ? 0 : transitions);
    }

    @Override
    public synchronized void create(KubernetesClient client, LeaderElectionRecord record) {
        Lease lease = new LeaseBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata().build();
        apply(lease, record);
        observed = client.leases().inNamespace(namespace).resource(lease).create();
    }

    @Override
    public synchronized void update(KubernetesClient client, LeaderElectionRecord record) {
        if (observed == null) {
            throw new IllegalStateException("lease " + namespace + "/" + name + " was not read before update");
        }
        Lease lease = new LeaseBuilder(observed).build();
        apply(lease, record);
        // Carries the resourceVersion read last, so a concurrent writer makes this fail with 409 as upstream's does.
        observed = client.leases().inNamespace(namespace).resource(lease).update();
    }

    private static void apply(Lease lease, LeaderElectionRecord record) {
        if (lease.getSpec() == null) {
            lease.setSpec(new LeaseSpec());
        }
        lease.getSpec().setHolderIdentity(record.getHolderIdentity());
        lease.getSpec().setLeaseDurationSeconds((int) record.getLeaseDuration().toSeconds());
        lease.getSpec().setAcquireTime(record.getAcquireTime());
        lease.getSpec().setRenewTime(record.getRenewTime());
        lease.getSpec().setLeaseTransitions(record.getLeaderTransitions());
    }

    @Override
    public String identity() {
        return identity;
    }

    @Override
    public String describe() {
        return "Lease: " + namespace + " - " + name + " (" + identity + ")";
    }
}
