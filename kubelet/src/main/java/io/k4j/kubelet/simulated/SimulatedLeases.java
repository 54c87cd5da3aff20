package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.codec.Timestamps;
import io.k4j.kubelet.nodestatus.NodeHeartbeat;
import java.time.Instant;

/**
 * A simulated node's heartbeat Lease as JSON, built as {@link io.k4j.kubelet.nodestatus.NodeLeases} builds the
 * kubelet's (named after the node in {@code kube-node-lease}, held by it, owned by the Node object), for
 * {@link io.k4j.controllerkit.requests.RawApi}'s requests. A renewal is the kubelet's update: the whole Lease as
 * last read, resourceVersion included, with a new renewTime; only {@code metadata.managedFields} is left out, which the
 * server then keeps as it is (as upstream's field manager does), so the request and the answer carry fewer bytes.
 * Stateless and thread-safe.
 */
final class SimulatedLeases {
    static final String API_VERSION = "coordination.k8s.io/v1";

    private SimulatedLeases() {}

    /** Where a node's Leases live; {@code name} empty for the collection. */
    static String path(String name) {
        String collection = "/apis/" + API_VERSION + "/namespaces/" + NodeHeartbeat.LEASE_NAMESPACE + "/leases";
        return name.isEmpty() ? collection : collection + "/" + name;
    }

    /**
     * A new Lease for a node.
     *
     * @param nodeUid the Node's uid for the owner reference; empty leaves the reference out
     */
    static ObjectNode newLease(String nodeName, String nodeUid, Instant now) {
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(nodeUid, "nodeUid is null");
        ObjectNode lease = Json.object();
        lease.put("apiVersion", API_VERSION);
        lease.put("kind", "Lease");
        ObjectNode metadata = lease.putObject("metadata");
        metadata.put("name", nodeName);
        metadata.put("namespace", NodeHeartbeat.LEASE_NAMESPACE);
        if (!nodeUid.isEmpty()) {
            metadata.putArray("ownerReferences").add(ownerReference(nodeName, nodeUid));
        }
        setSpec(lease, nodeName, now);
        return lease;
    }

    /**
     * {@code lease} renewed at {@code now}: a copy keeping its metadata (and so its resourceVersion for the optimistic
     * update) without managedFields; holder and duration are set again in case someone changed them, and the owner
     * reference points at the node's current uid (a node deleted and registered again must not leave its Lease to the
     * garbage collector).
     *
     * @param nodeUid the Node's uid; empty keeps the owner references as they are
     */
    static ObjectNode renewed(ObjectNode lease, String nodeName, String nodeUid, Instant now) {
        requireNonNull(lease, "lease is null");
        requireNonNull(nodeUid, "nodeUid is null");
        ObjectNode renewed = withoutManagedFields(lease);
        renewed.put("apiVersion", API_VERSION);
        renewed.put("kind", "Lease");
        ObjectNode metadata = renewed.withObjectProperty("metadata");
        if (!nodeUid.isEmpty() && !ownedBy(metadata, nodeUid)) {
            ArrayNode references = Json.nodeFactory().arrayNode();
            references.add(ownerReference(nodeName, nodeUid));
            metadata.set("ownerReferences", references);
        }
        setSpec(renewed, nodeName, now);
        return renewed;
    }

    /** A copy of {@code lease} without {@code metadata.managedFields}: what the simulator keeps of a Lease it read. */
    static ObjectNode withoutManagedFields(JsonNode lease) {
        return dropManagedFields(object(lease).deepCopy());
    }

    /** {@code lease} itself, its {@code metadata.managedFields} removed: for a tree nobody else holds. */
    static ObjectNode dropManagedFields(JsonNode lease) {
        ObjectNode object = object(lease);
        if (object.get("metadata") instanceof ObjectNode metadata) {
            metadata.remove("managedFields");
        }
        return object;
    }

    private static ObjectNode object(JsonNode lease) {
        if (!(lease instanceof ObjectNode object)) {
            throw new IllegalArgumentException("a Lease is a JSON object, not " + lease.getNodeType());
        }
        return object;
    }

    private static void setSpec(ObjectNode lease, String nodeName, Instant now) {
        ObjectNode spec = lease.withObjectProperty("spec");
        spec.put("holderIdentity", nodeName);
        spec.put("leaseDurationSeconds", NodeHeartbeat.LEASE_DURATION_SECONDS);
        spec.put("renewTime", Timestamps.formatMicro(now));
    }

    private static boolean ownedBy(ObjectNode metadata, String nodeUid) {
        for (JsonNode reference : metadata.path("ownerReferences")) {
            if (nodeUid.equals(reference.path("uid").asText())) {
                return true;
            }
        }
        return false;
    }

    private static ObjectNode ownerReference(String nodeName, String nodeUid) {
        ObjectNode reference = Json.object();
        reference.put("apiVersion", "v1");
        reference.put("kind", "Node");
        reference.put("name", nodeName);
        reference.put("uid", nodeUid);
        return reference;
    }
}
