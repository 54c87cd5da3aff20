package io.k4j.kubelet.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SimulatedLeasesTest {
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05.123456789Z");

    @Test
    void newLeaseIsHeldAndOwnedByTheNode() {
        ObjectNode lease = SimulatedLeases.newLease("node-1", "uid-1", NOW);

        assertThat(lease).isEqualTo(Json.read("""
                {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                 "metadata": {"name": "node-1", "namespace": "kube-node-lease",
                              "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": "uid-1"}]},
                 "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40, "renewTime": "2026-01-02T03:04:05.123456Z"}}"""));
    }

    @Test
    void newLeaseOfANodeWithoutUidHasNoOwner() {
        assertThat(SimulatedLeases.newLease("node-1", "", NOW).path("metadata").has("ownerReferences")).isFalse();
    }

    @Test
    void renewalKeepsTheLeaseButItsManagedFieldsAndSetsTheRenewTime() {
        ObjectNode read = (ObjectNode) Json.read("""
                {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                 "metadata": {"name": "node-1", "namespace": "kube-node-lease", "uid": "lease-uid", "resourceVersion": "42",
                              "labels": {"team": "a"},
                              "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": "uid-1"}],
                              "managedFields": [{"manager": "k4j-node-simulator", "operation": "Update"}]},
                 "spec": {"holderIdentity": "someone-else", "leaseDurationSeconds": 15, "renewTime": "2026-01-02T03:03:55.000000Z",
                          "leaseTransitions": 2}}""");
        String before = read.toString();

        ObjectNode renewed = SimulatedLeases.renewed(read, "node-1", "uid-1", NOW);

        assertThat(renewed).isEqualTo(Json.read("""
                {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                 "metadata": {"name": "node-1", "namespace": "kube-node-lease", "uid": "lease-uid", "resourceVersion": "42",
                              "labels": {"team": "a"},
                              "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": "uid-1"}]},
                 "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40, "renewTime": "2026-01-02T03:04:05.123456Z",
                          "leaseTransitions": 2}}"""));
        assertThat(read.toString()).as("the kept Lease is not changed").isEqualTo(before);
    }

    @Test
    void renewalPointsTheOwnerAtANodeRegisteredAgain() {
        ObjectNode read = SimulatedLeases.newLease("node-1", "old-uid", NOW);

        JsonNode renewed = SimulatedLeases.renewed(read, "node-1", "new-uid", NOW);

        assertThat(renewed.path("metadata").path("ownerReferences")).hasSize(1);
        assertThat(renewed.path("metadata").path("ownerReferences").get(0).path("uid").asText()).isEqualTo("new-uid");
        assertThat(SimulatedLeases.renewed(read, "node-1", "", NOW).path("metadata").path("ownerReferences").get(0).path("uid").asText())
                .as("an unknown uid keeps the owner").isEqualTo("old-uid");
    }

    @Test
    void managedFieldsAreLeftOutOfACopyOrDroppedInPlace() {
        JsonNode read = Json.read("{\"metadata\": {\"name\": \"node-1\", \"managedFields\": [{\"manager\": \"m\"}]}}");

        ObjectNode copy = SimulatedLeases.withoutManagedFields(read);
        assertThat(copy).isEqualTo(Json.read("{\"metadata\": {\"name\": \"node-1\"}}"));
        assertThat(read.path("metadata").has("managedFields")).isTrue();

        assertThat(SimulatedLeases.dropManagedFields(read)).isSameAs(read);
        assertThat(read).isEqualTo(Json.read("{\"metadata\": {\"name\": \"node-1\"}}"));
    }

    @Test
    void pathsAreTheLeaseCollectionAndItsMembers() {
        assertThat(SimulatedLeases.path("")).isEqualTo("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases");
        assertThat(SimulatedLeases.path("node-1")).isEqualTo("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1");
    }
}
