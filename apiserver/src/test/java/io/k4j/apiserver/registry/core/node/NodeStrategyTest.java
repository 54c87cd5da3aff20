package io.k4j.apiserver.registry.core.node;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class NodeStrategyTest {
    private final NodeStrategy strategy = new NodeStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void allocatableDefaultsToCapacity() {
        ObjectNode node = object("{'metadata':{'name':'n1'},'status':{'capacity':{'cpu':'4','memory':'8Gi'}}}");
        strategy.applyDefaults(node);
        assertThat(node.at("/status/allocatable")).isEqualTo(object("{'cpu':'4','memory':'8Gi'}"));

        ObjectNode explicit = object("{'metadata':{'name':'n1'},'status':{'capacity':{'cpu':'4'},'allocatable':{'cpu':'3'}}}");
        strategy.applyDefaults(explicit);
        assertThat(explicit.at("/status/allocatable")).isEqualTo(object("{'cpu':'3'}"));
    }

    @Test
    void createKeepsTheStatusTheKubeletRegistersWith() {
        ObjectNode node = object("{'metadata':{'name':'n1'},'status':{'addresses':[{'type':'InternalIP','address':'10.0.0.1'}]}}");
        strategy.prepareForCreate(node);
        assertThat(node.at("/status/addresses/0/address").asText()).isEqualTo("10.0.0.1");
    }

    @Test
    void specUpdatesKeepTheStatusAndStatusUpdatesKeepTheSpec() {
        ObjectNode old = object("{'metadata':{'name':'n1'},'spec':{'unschedulable':false},'status':{'phase':'Running'}}");
        ObjectNode specUpdate = object("{'metadata':{'name':'n1'},'spec':{'unschedulable':true},'status':{'phase':'Terminated'}}");
        strategy.prepareForUpdate(specUpdate, old);
        assertThat(specUpdate).isEqualTo(object("{'metadata':{'name':'n1'},'spec':{'unschedulable':true},'status':{'phase':'Running'}}"));

        ResourceStrategy status = strategy.statusStrategy();
        ObjectNode statusUpdate = object("{'metadata':{'name':'n1'},'spec':{'unschedulable':true},'status':{'phase':'Terminated'}}");
        status.prepareForUpdate(statusUpdate, old);
        assertThat(statusUpdate).isEqualTo(object("{'metadata':{'name':'n1'},'spec':{'unschedulable':false},'status':{'phase':'Terminated'}}"));
        assertThat(messages(status.validateUpdate(object("{'status':{'addresses':[{'address':'10.0.0.1'}]}}"), old)))
                .containsExactly("status.addresses[0].type: Required value");
    }

    @Test
    void taintsNeedQualifiedKeysLabelValuesKnownEffectsAndUniqueKeyEffectPairs() {
        ObjectNode node = object("{'metadata':{'name':'n1'},'spec':{'taints':["
                + "{'key':'a b','effect':'NoSchedule'},"
                + "{'key':'k','value':'-bad-','effect':'Sometimes'},"
                + "{'key':'k','value':'v'},"
                + "{'key':'k','value':'w','effect':'NoSchedule'},"
                + "{'key':'k','value':'x','effect':'NoSchedule'}]}}");
        assertThat(messages(strategy.validate(node))).containsExactly(
                "spec.taints[0].key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "spec.taints[1].value: Invalid value: \"-bad-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                "spec.taints[1].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                "spec.taints[2].effect: Required value",
                "spec.taints[4]: Duplicate value: core.Taint{Key:\"k\", Value:\"x\", Effect:\"NoSchedule\", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair");
    }

    @Test
    void podCidrsAreValidAndFixedOnceSet() {
        assertThat(messages(strategy.validate(object("{'spec':{'podCIDRs':['10.244.0.0/24','x']}}"))))
                .containsExactly("spec.podCIDRs[1]: Invalid value: \"x\": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)");
        ObjectNode old = object("{'spec':{'podCIDR':'10.244.0.0/24','podCIDRs':['10.244.0.0/24'],'providerID':'k4j://n1'}}");
        assertThat(messages(strategy.validateUpdate(object("{'spec':{'podCIDR':'10.244.1.0/24','podCIDRs':['10.244.1.0/24'],'providerID':'k4j://n2'}}"), old)))
                .containsExactly(
                        "spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" to valid",
                        "spec.providerID: Forbidden: node updates may not change providerID except from \"\" to valid");
        assertThat(strategy.validateUpdate(object("{'spec':{'podCIDR':'10.244.0.0/24','podCIDRs':['10.244.0.0/24']}}"), object("{'spec':{}}")).isEmpty()).isTrue();
    }

    @Test
    void printsStatusRolesVersionAndWideColumns() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly(
                "Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime");
        assertThat(strategy.tableColumns()).extracting(TableColumn::priority).containsExactly(0, 0, 0, 0, 0, 1, 1, 1, 1, 1);
        ObjectNode node = object("{'metadata':{'name':'n1','creationTimestamp':'2026-01-01T00:00:00Z',"
                + "'labels':{'node-role.kubernetes.io/control-plane':'','node-role.kubernetes.io/worker':'','kubernetes.io/role':'master'}},"
                + "'spec':{'unschedulable':true},"
                + "'status':{'conditions':[{'type':'MemoryPressure','status':'False'},{'type':'Ready','status':'False'}],"
                + "'addresses':[{'type':'Hostname','address':'n1'},{'type':'InternalIP','address':'10.0.0.1'}],"
                + "'nodeInfo':{'kubeletVersion':'v1.32.0','osImage':'Debian','kernelVersion':'6.1.0','containerRuntimeVersion':''}}}");
        assertThat(strategy.tableRow(node)).containsExactly(
                "n1", "NotReady,SchedulingDisabled", "control-plane,master,worker", "60s", "v1.32.0", "10.0.0.1", "<none>", "Debian", "6.1.0", "<unknown>");
        assertThat(strategy.tableRow(object("{'metadata':{'name':'n2'}}")).subList(0, 3)).containsExactly("n2", "Unknown", "<none>");
    }

    @Test
    void selectsOnUnschedulable() {
        assertThat(strategy.selectableFields(object("{'spec':{'unschedulable':true}}"))).containsEntry("spec.unschedulable", "true");
        assertThat(strategy.selectableFields(object("{'spec':{}}"))).containsEntry("spec.unschedulable", "false");
    }
}
