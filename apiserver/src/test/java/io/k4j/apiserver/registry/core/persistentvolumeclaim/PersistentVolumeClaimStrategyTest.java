package io.k4j.apiserver.registry.core.persistentvolumeclaim;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class PersistentVolumeClaimStrategyTest {
    private static final String SPEC = "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}},'volumeMode':'Filesystem'";
    private final PersistentVolumeClaimStrategy strategy = new PersistentVolumeClaimStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void defaultsVolumeModeAndStartsPending() {
        ObjectNode claim = object("{'spec':{'accessModes':['ReadWriteOnce']},'status':{'phase':'Bound'}}");
        strategy.applyDefaults(claim);
        assertThat(claim.at("/spec/volumeMode").asText()).isEqualTo("Filesystem");
        strategy.prepareForCreate(claim);
        assertThat(claim.get("status")).isEqualTo(object("{'phase':'Pending'}"));
    }

    @Test
    void needsAccessModesAndAPositiveStorageRequest() {
        assertThat(messages(strategy.validate(object("{'spec':{}}")))).containsExactly(
                "spec.accessModes: Required value: at least 1 access mode is required",
                "spec.resources[storage]: Required value");
        assertThat(messages(strategy.validate(object("{'spec':{'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'0'}},'storageClassName':'Fast'}}"))))
                .containsExactly(
                        "spec.resources[storage]: Invalid value: \"0\": must be greater than zero",
                        "spec.storageClassName: Invalid value: \"Fast\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }

    @Test
    void specIsImmutableExceptBindingAndGrowingABoundClaim() {
        ObjectNode old = object("{'spec':{" + SPEC + "},'status':{'phase':'Pending'}}");
        ObjectNode binding = object("{'spec':{" + SPEC + ",'volumeName':'pv1'},'status':{'phase':'Pending'}}");
        assertThat(strategy.validateUpdate(binding, old).isEmpty()).isTrue();

        ObjectNode boundOld = object("{'spec':{" + SPEC + ",'volumeName':'pv1'},'status':{'phase':'Bound'}}");
        ObjectNode grown = object("{'spec':{'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'2Gi'}},'volumeMode':'Filesystem','volumeName':'pv1'},"
                + "'status':{'phase':'Bound'}}");
        assertThat(strategy.validateUpdate(grown, boundOld).isEmpty()).isTrue();
        ObjectNode shrunk = object("{'spec':{'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'512Mi'}},'volumeMode':'Filesystem','volumeName':'pv1'},"
                + "'status':{'phase':'Bound'}}");
        assertThat(messages(strategy.validateUpdate(shrunk, boundOld))).containsExactly(
                "spec.resources.requests.storage: Forbidden: field can not be less than previous value");

        ObjectNode pendingGrown = object("{'spec':{'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'2Gi'}},'volumeMode':'Filesystem'},"
                + "'status':{'phase':'Pending'}}");
        assertThat(messages(strategy.validateUpdate(pendingGrown, old))).singleElement().asString()
                .startsWith("spec: Forbidden: spec is immutable after creation except resources.requests for bound claims\n");
    }

    @Test
    void statusAndSpecAreUpdatedSeparately() {
        ObjectNode old = object("{'spec':{" + SPEC + "},'status':{'phase':'Pending'}}");
        ObjectNode specUpdate = object("{'spec':{" + SPEC + ",'volumeName':'pv1'},'status':{'phase':'Bound'}}");
        strategy.prepareForUpdate(specUpdate, old);
        assertThat(specUpdate.get("status")).isEqualTo(object("{'phase':'Pending'}"));

        ResourceStrategy status = strategy.statusStrategy();
        ObjectNode statusUpdate = object("{'spec':{'accessModes':['ReadOnlyMany']},'status':{'phase':'Bound','capacity':{'storage':'1Gi'}}}");
        status.prepareForUpdate(statusUpdate, old);
        assertThat(statusUpdate).isEqualTo(object("{'spec':{" + SPEC + "},'status':{'phase':'Bound','capacity':{'storage':'1Gi'}}}"));
    }

    @Test
    void printsBindingDetailsOnlyOnceBound() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly(
                "Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode");
        ObjectNode bound = object("{'metadata':{'name':'data','creationTimestamp':'2026-01-01T00:00:00Z'},"
                + "'spec':{'volumeName':'pv1','storageClassName':'fast','volumeMode':'Filesystem'},"
                + "'status':{'phase':'Bound','accessModes':['ReadWriteOnce'],'capacity':{'storage':'2048Mi'}}}");
        assertThat(strategy.tableRow(bound)).containsExactly("data", "Bound", "pv1", "2Gi", "RWO", "fast", "<unset>", "60s", "Filesystem");
        ObjectNode pending = object("{'metadata':{'name':'new','creationTimestamp':'2026-01-01T00:00:00Z','annotations':{'volume.beta.kubernetes.io/storage-class':'legacy'}},"
                + "'spec':{'storageClassName':'fast'},'status':{'phase':'Pending'}}");
        assertThat(strategy.tableRow(pending)).containsExactly("new", "Pending", "", "", "", "legacy", "<unset>", "60s", "<unset>");
    }
}
