package io.k4j.kubelet.nodestatus;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/**
 * Builds a node's heartbeat Lease as the kubelet does: named after the node in {@code kube-node-lease}, held by the
 * node, lasting {@link NodeHeartbeat#LEASE_DURATION_SECONDS}, owned by the Node object so that deleting the node
 * deletes its Lease. Stateless and thread-safe.
 */
public final class NodeLeases {
    private NodeLeases() {}

    /**
     * A new Lease for a node.
     *
     * @param nodeUid the Node's uid for the owner reference; empty leaves the reference out (the kubelet adds it once
     *     it knows the uid)
     */
    public static Lease newLease(String nodeName, String nodeUid, Instant now) {
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(nodeUid, "nodeUid is null");
        ObjectMetaBuilder metadata = new ObjectMetaBuilder().withName(nodeName).withNamespace(NodeHeartbeat.LEASE_NAMESPACE);
        if (!nodeUid.isEmpty()) {
            metadata.withOwnerReferences(new OwnerReferenceBuilder()
                    .withApiVersion("v1").withKind("Node").withName(nodeName).withUid(nodeUid)
                    .build());
        }
        return new LeaseBuilder()
                .withMetadata(metadata.build())
                .withNewSpec()
                .withHolderIdentity(nodeName)
                .withLeaseDurationSeconds(NodeHeartbeat.LEASE_DURATION_SECONDS)
                .withRenewTime(microTime(now))
                .endSpec()
                .build();
    }

    /**
     * The Lease renewed at {@code now}, keeping its metadata (and so its resourceVersion for the optimistic update);
     * holder and duration are set again in case someone changed them.
     */
    public static Lease renewed(Lease lease, String nodeName, Instant now) {
        requireNonNull(lease, "lease is null");
        return new LeaseBuilder(lease)
                .editOrNewSpec()
                .withHolderIdentity(nodeName)
                .withLeaseDurationSeconds(NodeHeartbeat.LEASE_DURATION_SECONDS)
                .withRenewTime(microTime(now))
                .endSpec()
                .build();
    }

    private static ZonedDateTime microTime(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS).atZone(ZoneOffset.UTC);
    }
}
