package io.k4j.apiserver.registry.core.persistentvolume;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class PersistentVolumeStrategyTest {
    private static final String SPEC = "'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],'hostPath':{'path':'/data'}";
    private final PersistentVolumeStrategy strategy = new PersistentVolumeStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00.5Z")));

    @Test
    void defaultsReclaimPolicyVolumeModeAndPhase() {
        ObjectNode volume = object("{'spec':{" + SPEC + "}}");
        strategy.applyDefaults(volume);
        assertThat(volume.at("/spec/persistentVolumeReclaimPolicy").asText()).isEqualTo("Retain");
        assertThat(volume.at("/spec/volumeMode").asText()).isEqualTo("Filesystem");
        assertThat(volume.at("/status/phase").asText()).isEqualTo("Pending");
    }

    @Test
    void createStartsPendingWithATransitionTime() {
        ObjectNode volume = object("{'spec':{" + SPEC + "},'status':{'phase':'Bound'}}");
        strategy.prepareForCreate(volume);
        assertThat(volume.get("status")).isEqualTo(object("{'phase':'Pending','lastPhaseTransitionTime':'2026-01-01T00:01:00Z'}"));
    }

    @Test
    void statusUpdatesKeepTheSpecAndStampPhaseChanges() {
        ResourceStrategy status = strategy.statusStrategy();
        ObjectNode old = object("{'spec':{" + SPEC + "},'status':{'phase':'Pending','lastPhaseTransitionTime':'2026-01-01T00:00:00Z'}}");
        ObjectNode bound = object("{'spec':{'capacity':{'storage':'5Gi'}},'status':{'phase':'Bound','lastPhaseTransitionTime':'2026-01-01T00:00:00Z'}}");
        status.prepareForUpdate(bound, old);
        assertThat(bound.get("spec")).isEqualTo(old.get("spec"));
        assertThat(bound.at("/status/lastPhaseTransitionTime").asText()).isEqualTo("2026-01-01T00:01:00Z");
        assertThat(messages(status.validateUpdate(object("{'status':{'phase':'Lost'}}"), old))).containsExactly(
                "status.phase: Unsupported value: \"Lost\": supported values: \"Available\", \"Bound\", \"Failed\", \"Pending\", \"Released\"");

        ObjectNode specUpdate = object("{'spec':{" + SPEC + "},'status':{'phase':'Failed'}}");
        strategy.prepareForUpdate(specUpdate, old);
        assertThat(specUpdate.get("status")).isEqualTo(old.get("status"));
    }

    @Test
    void needsCapacityAccessModesAndExactlyOneSource() {
        assertThat(messages(strategy.validate(object("{'spec':{'accessModes':['ReadWriteOncePod','ReadWriteMany','Sometimes'],'persistentVolumeReclaimPolicy':'Keep'}}"))))
                .containsExactly(
                        "spec.accessModes: Unsupported value: \"Sometimes\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
                        "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
                        "spec.capacity: Required value",
                        "spec.persistentVolumeReclaimPolicy: Unsupported value: \"Keep\": supported values: \"Delete\", \"Recycle\", \"Retain\"",
                        "spec: Required value: must specify a volume type");
        assertThat(messages(strategy.validate(object("{'spec':{'capacity':{'storage':'1Gi'},'hostPath':{'path':'/a'},'nfs':{'server':'s','path':'/b'}}}"))))
                .containsExactly("spec.accessModes: Required value: must specify at least 1 access mode", "spec.nfs: Forbidden: may not specify more than 1 volume type");
    }

    @Test
    void theSourceAndVolumeModeAreImmutable() {
        ObjectNode old = object("{'spec':{" + SPEC + ",'volumeMode':'Filesystem'}}");
        ObjectNode resized = object("{'spec':{'capacity':{'storage':'2Gi'},'accessModes':['ReadWriteOnce'],'hostPath':{'path':'/data'},'volumeMode':'Filesystem'}}");
        assertThat(strategy.validateUpdate(resized, old).isEmpty()).isTrue();
        ObjectNode moved = object("{'spec':{'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],'hostPath':{'path':'/other'},'volumeMode':'Block'}}");
        assertThat(messages(strategy.validateUpdate(moved, old))).hasSize(2)
                .anySatisfy(message -> assertThat(message).startsWith("spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is forbidden."))
                .contains("spec.volumeMode: Invalid value: \"Block\": field is immutable");
    }

    @Test
    void printsCapacityModesClaimAndClasses() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly(
                "Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass", "VolumeAttributesClass", "Reason", "Age", "VolumeMode");
        ObjectNode volume = object("{'metadata':{'name':'pv1','creationTimestamp':'2026-01-01T00:00:00Z'},'spec':{'capacity':{'storage':'1024Mi'},"
                + "'accessModes':['ReadWriteMany','ReadWriteOnce','ReadWriteOnce'],'persistentVolumeReclaimPolicy':'Delete','storageClassName':'fast',"
                + "'claimRef':{'namespace':'team','name':'data'},'volumeMode':'Filesystem'},'status':{'phase':'Bound'}}");
        assertThat(strategy.tableRow(volume)).containsExactly("pv1", "1Gi", "RWO,RWX", "Delete", "Bound", "team/data", "fast", "<unset>", "", "60s", "Filesystem");
        ObjectNode deleting = object("{'metadata':{'name':'pv2','deletionTimestamp':'2026-01-01T00:00:30Z'},'spec':{},'status':{'phase':'Released'}}");
        assertThat(strategy.tableRow(deleting)).containsExactly("pv2", "0", "", "", "Terminating", "", "", "<unset>", "", "<unknown>", "<unset>");
    }
}
