package io.k4j.controllers.resourcequota;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ResourceQuotaControllerTest {
    private final CacheImpl<ResourceQuota> quotaCache = new CacheImpl<>();
    private final Map<String, CacheImpl<HasMetadata>> objects = new TreeMap<>();
    private final List<ResourceQuota> written = new ArrayList<>();
    private final ResourceQuotaController controller = new ResourceQuotaController(new Lister<>(quotaCache), this::list, written::add);

    @AfterEach
    void shutDown() {
        controller.close();
    }

    @Test
    void sumsObjectCountsAndPodComputeForTheQuotasHardNames() {
        quota(Map.of("pods", "10", "count/pods", "10", "configmaps", "5", "services.nodeports", "4", "requests.cpu", "2",
                "limits.memory", "1Gi", "count/deployments.apps", "3"));
        add("pods", pod("a", "250m", "128Mi", null));
        add("pods", pod("b", "500m", "256Mi", null));
        add("pods", pod("done", "1", "1Gi", "Succeeded"));
        add("pods", pod("elsewhere", "1", "1Gi", null, "other"));
        add("configmaps", new ConfigMapBuilder().withNewMetadata().withNamespace("team").withName("c").endMetadata().build());
        add("services", new ServiceBuilder().withNewMetadata().withNamespace("team").withName("s").endMetadata()
                .withNewSpec().withType("NodePort").addNewPort().withPort(80).endPort().addNewPort().withPort(443).endPort().endSpec().build());

        controller.sync("team/compute");

        assertThat(written).hasSize(1);
        assertThat(used(written.getFirst())).isEqualTo(Map.of(
                "pods", "2", "count/pods", "2", "configmaps", "1", "services.nodeports", "2",
                "requests.cpu", "750m", "limits.memory", "384Mi", "count/deployments.apps", "0"));
        assertThat(written.getFirst().getStatus().getHard()).isEqualTo(written.getFirst().getSpec().getHard());
    }

    @Test
    void writesOnlyWhenUsageChanged() {
        quota(Map.of("configmaps", "5"));
        add("configmaps", new ConfigMapBuilder().withNewMetadata().withNamespace("team").withName("c").endMetadata().build());
        controller.sync("team/compute");
        quotaCache.put(written.getFirst());

        controller.sync("team/compute");
        assertThat(written).hasSize(1);

        objects.get("configmaps").remove(objects.get("configmaps").list().getFirst());
        controller.sync("team/compute");
        assertThat(written).hasSize(2);
        assertThat(used(written.get(1))).isEqualTo(Map.of("configmaps", "0"));
    }

    @Test
    void scopedQuotasCountOnlyTheirPods() {
        quotaCache.put(new ResourceQuotaBuilder().withNewMetadata().withNamespace("team").withName("compute").endMetadata()
                .withNewSpec().withHard(Map.of("pods", new Quantity("5"))).withScopes("BestEffort").endSpec().build());
        add("pods", pod("guaranteed", "1", "1Gi", null));
        add("pods", new PodBuilder().withNewMetadata().withNamespace("team").withName("besteffort").endMetadata()
                .withNewSpec().addNewContainer().withName("app").endContainer().endSpec().build());

        controller.sync("team/compute");

        assertThat(used(written.getFirst())).isEqualTo(Map.of("pods", "1"));
    }

    @Test
    void aDeletedObjectRequeuesTheQuotasOfItsNamespace() throws Exception {
        quota(Map.of("configmaps", "5"));
        controller.enqueueNamespace("team");
        controller.enqueueNamespace("other");
        assertThat(controller.queue().length()).isEqualTo(1);
        assertThat(controller.queue().get()).contains("team/compute");
    }

    private void quota(Map<String, String> hard) {
        Map<String, Quantity> quantities = new TreeMap<>();
        hard.forEach((name, value) -> quantities.put(name, new Quantity(value)));
        quotaCache.put(new ResourceQuotaBuilder().withNewMetadata().withNamespace("team").withName("compute").endMetadata()
                .withNewSpec().withHard(quantities).endSpec().build());
    }

    private void add(String resource, HasMetadata object) {
        objects.computeIfAbsent(resource, ignored -> new CacheImpl<>()).put(object);
    }

    private List<JsonNode> list(String group, String resource, String namespace) {
        String key = group.isEmpty() ? resource : resource + "." + group;
        if (!objects.containsKey(key)) {
            return List.of();
        }
        return new Lister<>(objects.get(key)).list(namespace).stream().map(ResourceQuotaController::toJson).toList();
    }

    private static Map<String, String> used(ResourceQuota quota) {
        Map<String, String> used = new TreeMap<>();
        quota.getStatus().getUsed().forEach((name, value) -> used.put(name, value.toString()));
        return used;
    }

    private static Pod pod(String name, String cpu, String memory, String phase) {
        return pod(name, cpu, memory, phase, "team");
    }

    private static Pod pod(String name, String cpu, String memory, String phase, String namespace) {
        return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withNewResources()
                .addToRequests("cpu", new Quantity(cpu)).addToLimits("memory", new Quantity(memory)).endResources().endContainer().endSpec()
                .withNewStatus().withPhase(phase).endStatus().build();
    }
}
