package io.k4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class SchedulerBenchTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aThroughputBodyLetsTheServerNameEachPodAndKeepsTheRestOfTheManifest() throws Exception {
        String named = SchedulerBench.topologySpreadPod(SchedulerBench.POD_NAME_PREFIX, "spread");

        JsonNode generated = JSON.readTree(SchedulerBench.withGeneratedName(named));

        assertThat(generated.path("metadata").has("name")).isFalse();
        assertThat(generated.path("metadata").path("generateName").asText()).isEqualTo("pod-");
        assertThat(generated.path("metadata").path("namespace").asText()).isEqualTo("spread");
        assertThat(generated.path("metadata").path("labels").path("bench").asText()).isEqualTo("spread");
        assertThat(generated.path("spec")).isEqualTo(JSON.readTree(named).path("spec"));
    }

    @Test
    void everyWorkloadVariantBecomesAGenerateNameBody() throws Exception {
        for (String named : new String[] {SchedulerBench.basicPod("pod-", "basic"), SchedulerBench.nodeAffinityPod("pod-", "node-affinity"),
                SchedulerBench.antiAffinityPod("pod-", "anti-affinity"), SchedulerBench.priorityPod("pod-", "low", "bench-low", "900m")}) {
            JsonNode generated = JSON.readTree(SchedulerBench.withGeneratedName(named));

            assertThat(generated.path("metadata").path("generateName").asText()).isEqualTo("pod-");
            assertThat(generated.path("metadata").has("name")).isFalse();
        }
    }

    @Test
    void aManifestWithoutANameIsRefused() {
        assertThatThrownBy(() -> SchedulerBench.withGeneratedName("{\"metadata\":{\"generateName\":\"pod-\"}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no metadata.name");
    }
}
