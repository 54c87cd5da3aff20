package io.k4j.apiserver.registry.core.pod;

import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.FakeObjectStore;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import io.k4j.apiserver.registry.generic.SubresourceHandler.Request;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodSubresourceHandlersTest {
    private static final GroupVersionResource BUDGETS = new GroupVersionResource("policy", "v1", "poddisruptionbudgets");
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-01-01T12:00:00Z"));
    private final FakeObjectStore pods = new FakeObjectStore(CoreResources.type("pods"));
    private final FakeObjectStore budgets = new FakeObjectStore(BuiltinResources.byResource(BUDGETS).orElseThrow());
    private final Registry registry = resource -> resource.equals(BUDGETS) ? Optional.<ObjectStore>of(budgets) : Optional.empty();

    private Request request(String name) {
        return new Request(pods, "default", name, UserInfo.of("system:kube-scheduler", List.of()), false);
    }

    @Test
    void bindingSetsTheNodeAndTheScheduledCondition() {
        pods.put(object("{'metadata':{'name':'web','namespace':'default'},'spec':{'containers':[{'name':'a','image':'b'}]},'status':{'phase':'Pending'}}"));
        PodBindingHandler handler = new PodBindingHandler(CLOCK);
        assertThat(handler.create(request("web"), object("{'metadata':{'name':'web','annotations':{'a':'b'}},'target':{'kind':'Node','name':'node-1'}}")))
                .isEqualTo(object("{'kind':'Status','apiVersion':'v1','metadata':{},'status':'Success','code':201}"));
        assertThat(pods.updatedSubresources).containsExactly(PodBindingStrategy.SUBRESOURCE);
        assertThat(pods.get("default", "web").at("/spec/nodeName").asText()).isEqualTo("node-1");
        assertThat(pods.get("default", "web").at("/metadata/annotations/a").asText()).isEqualTo("b");
        assertThat(pods.get("default", "web").at("/status/conditions/0")).isEqualTo(
                object("{'type':'PodScheduled','status':'True','lastProbeTime':null,'lastTransitionTime':'2026-01-01T12:00:00Z'}"));

        assertThatThrownBy(() -> handler.create(request("web"), object("{'metadata':{'name':'web'},'target':{'name':'node-2'}}")))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(409))
                .hasMessage("Operation cannot be fulfilled on binding \"web\": pod web is already assigned to node \"node-1\"");
    }

    @Test
    void bindingRejectsAMismatchedName() {
        assertThatThrownBy(() -> new PodBindingHandler(CLOCK).create(request("web"), object("{'metadata':{'name':'other'},'target':{'name':'n'}}")))
                .hasMessage("name in URL does not match name in Binding object");
    }

    @Test
    void evictionHonoursTheDisruptionBudget() {
        pods.put(object("{'metadata':{'name':'web','namespace':'default','labels':{'app':'web'}},'status':{'phase':'Running','conditions':[{'type':'Ready','status':'True'}]}}"));
        budgets.put(object("{'metadata':{'name':'web-pdb','namespace':'default','generation':1},'spec':{'selector':{'matchLabels':{'app':'web'}}},"
                + "'status':{'observedGeneration':1,'disruptionsAllowed':0,'desiredHealthy':1,'currentHealthy':1}}"));
        PodEvictionHandler handler = new PodEvictionHandler(registry, CLOCK);
        assertThatThrownBy(() -> handler.create(request("web"), object("{'metadata':{'name':'web'}}")))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(429);
                    assertThat(e.causes()).singleElement().satisfies(cause -> assertThat(cause.message()).isEqualTo("The disruption budget web-pdb needs 1 healthy pods and has 1 currently"));
                })
                .hasMessage("Cannot evict pod as it would violate the pod's disruption budget.");
        assertThat(pods.deleted).isEmpty();

        budgets.put(object("{'metadata':{'name':'web-pdb','namespace':'default','generation':1},'spec':{'selector':{'matchLabels':{'app':'web'}}},"
                + "'status':{'observedGeneration':1,'disruptionsAllowed':1,'desiredHealthy':1,'currentHealthy':2}}"));
        assertThat(handler.create(request("web"), object("{'metadata':{'name':'web'}}")).get("status").asText()).isEqualTo("Success");
        assertThat(pods.deleted).containsExactly("web");
        assertThat(budgets.get("default", "web-pdb").at("/status/disruptionsAllowed").asInt()).isZero();
        assertThat(budgets.get("default", "web-pdb").at("/status/disruptedPods/web").asText()).isEqualTo("2026-01-01T12:00:00Z");
        assertThat(budgets.updatedSubresources).containsExactly("status");
    }

    @Test
    void evictionOfAPendingPodIgnoresBudgets() {
        pods.put(object("{'metadata':{'name':'web','namespace':'default','labels':{'app':'web'}},'status':{'phase':'Pending'}}"));
        budgets.put(object("{'metadata':{'name':'web-pdb','namespace':'default'},'spec':{'selector':{}},'status':{'disruptionsAllowed':0}}"));
        new PodEvictionHandler(registry, CLOCK).create(request("web"), object("{'metadata':{'name':'web'}}"));
        assertThat(pods.deleted).containsExactly("web");
    }
}
