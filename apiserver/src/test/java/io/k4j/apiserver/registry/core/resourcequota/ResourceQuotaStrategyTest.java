package io.k4j.apiserver.registry.core.resourcequota;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class ResourceQuotaStrategyTest {
    private final ResourceQuotaStrategy strategy = new ResourceQuotaStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void createClearsTheStatusAndUpdatesKeepIt() {
        ObjectNode quota = object("{'spec':{'hard':{'pods':'10'}},'status':{'used':{'pods':'3'}}}");
        strategy.prepareForCreate(quota);
        assertThat(quota.get("status")).isEqualTo(object("{}"));

        ObjectNode old = object("{'spec':{'hard':{'pods':'10'}},'status':{'hard':{'pods':'10'},'used':{'pods':'3'}}}");
        ObjectNode updated = object("{'spec':{'hard':{'pods':'20'}},'status':{'used':{'pods':'0'}}}");
        strategy.prepareForUpdate(updated, old);
        assertThat(updated).isEqualTo(object("{'spec':{'hard':{'pods':'20'}},'status':{'hard':{'pods':'10'},'used':{'pods':'3'}}}"));
    }

    @Test
    void statusUpdatesKeepTheSpecAndCheckQuantities() {
        ResourceStrategy status = strategy.statusStrategy();
        ObjectNode old = object("{'spec':{'hard':{'pods':'10'}},'status':{}}");
        ObjectNode updated = object("{'spec':{'hard':{'pods':'99'}},'status':{'hard':{'pods':'10'},'used':{'pods':'-1'}}}");
        status.prepareForUpdate(updated, old);
        assertThat(updated.get("spec")).isEqualTo(old.get("spec"));
        assertThat(messages(status.validateUpdate(updated, old))).containsExactly("status.used[pods]: Invalid value: \"-1\": must be greater than or equal to 0");
    }

    @Test
    void hardLimitsNameQuotaResourcesWithNonNegativeQuantities() {
        ObjectNode quota = object("{'spec':{'hard':{'cpu':'-1','memory':'lots','pods':'1500m','storage':'1Gi','example.com/gpu':'2'}}}");
        assertThat(messages(strategy.validate(quota))).containsExactly(
                "spec.hard[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                "spec.hard[memory]: Invalid value: \"lots\": must be a valid quantity",
                "spec.hard[pods]: Invalid value: \"1500m\": must be an integer",
                "spec.hard[storage]: Invalid value: \"storage\": must be a standard resource for quota");
    }

    @Test
    void scopesMustBeKnownFitTheResourcesAndNotConflict() {
        String scopes = "[]core.ResourceQuotaScope{\"BestEffort\", \"NotBestEffort\", \"Sometimes\"}";
        ObjectNode quota = object("{'spec':{'hard':{'pods':'10','cpu':'2'},'scopes':['BestEffort','NotBestEffort','Sometimes']}}");
        assertThat(messages(strategy.validate(quota))).containsExactly(
                "spec.scopes: Invalid value: " + scopes + ": unsupported scope applied to resource",
                "spec.scopes: Invalid value: " + scopes + ": unsupported scope",
                "spec.scopes: Invalid value: " + scopes + ": conflicting scopes");
        ObjectNode old = object("{'spec':{'hard':{'pods':'10'},'scopes':['Terminating']}}");
        assertThat(messages(strategy.validateUpdate(object("{'spec':{'hard':{'pods':'10'},'scopes':['NotTerminating']}}"), old))).containsExactly(
                "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"NotTerminating\"}: field is immutable");
        assertThat(strategy.validateUpdate(object("{'spec':{'hard':{'pods':'20'},'scopes':['Terminating']}}"), old).isEmpty()).isTrue();
    }

    @Test
    void printsUsedOverHardSplitIntoRequestsAndLimits() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly("Name", "Age", "Request", "Limit");
        ObjectNode quota = object("{'metadata':{'name':'compute','creationTimestamp':'2026-01-01T00:00:00Z'},"
                + "'status':{'hard':{'pods':'10','requests.memory':'1024Mi','limits.cpu':'4'},'used':{'pods':'3','limits.cpu':'500m'}}}");
        assertThat(strategy.tableRow(quota)).containsExactly("compute", "60s", "pods: 3/10, requests.memory: 0/1Gi", "limits.cpu: 500m/4");
    }
}
