package io.k4j.kubelet.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedNodeConfigTest {
    @TempDir
    Path directory;

    @Test
    void readsEveryFieldOverTheDefaults() throws IOException {
        Path file = write("""
                capacity: {cpu: "8", nvidia.com/gpu: "2"}
                labels: {example.com/pool: simulated}
                taints: [{key: example.com/simulated, value: "true", effect: NoSchedule}, {key: dedicated, effect: NoExecute}]
                zones: [east, west]
                region: europe
                instanceType: m5.large
                namePrefix: fake-
                nodeAddressCidr: 172.30.0.0/16
                podRunSeconds: 0.25
                maxConcurrentWrites: 8
                """);

        SimulatedNodeConfig config = SimulatedNodeConfig.load(file, "v1.32.4");

        assertThat(config.capacity()).containsEntry("cpu", "8").containsEntry("memory", "256Gi").containsEntry("pods", "110").containsEntry("nvidia.com/gpu", "2");
        assertThat(config.labels()).containsEntry("example.com/pool", "simulated");
        assertThat(config.taints()).containsExactly(new SimulatedNodeConfig.SimulatedTaint("example.com/simulated", "true", "NoSchedule"),
                new SimulatedNodeConfig.SimulatedTaint("dedicated", "", "NoExecute"));
        assertThat(config.zones()).containsExactly("east", "west");
        assertThat(config.podRunDuration()).isEqualTo(Duration.ofMillis(250));
        assertThat(config.maxConcurrentWrites()).isEqualTo(8);

        Node node = new SimulatedNodeTemplate(config).node(3, "172.30.0.4", Instant.parse("2026-01-02T03:04:05Z"));
        assertThat(node.getMetadata().getName()).isEqualTo("fake-3");
        assertThat(node.getMetadata().getLabels()).containsEntry("topology.kubernetes.io/zone", "west").containsEntry("topology.kubernetes.io/region", "europe")
                .containsEntry("node.kubernetes.io/instance-type", "m5.large").containsEntry("kubernetes.io/hostname", "fake-3")
                .containsEntry("example.com/pool", "simulated");
        assertThat(node.getMetadata().getAnnotations()).containsEntry("kwok.x-k8s.io/node", "fake");
        assertThat(node.getSpec().getTaints()).hasSize(2);
        assertThat(node.getSpec().getTaints().get(1).getValue()).isNull();
        assertThat(node.getStatus().getCapacity().get("nvidia.com/gpu").toString()).isEqualTo("2");
        assertThat(node.getStatus().getAllocatable()).isEqualTo(node.getStatus().getCapacity());
        assertThat(node.getStatus().getAddresses()).extracting(address -> address.getType() + "=" + address.getAddress())
                .containsExactly("InternalIP=172.30.0.4", "Hostname=fake-3");
        assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.32.4");
        assertThat(node.getStatus().getConditions()).anyMatch(condition -> condition.getType().equals("Ready") && condition.getStatus().equals("True"));
    }

    @Test
    void theDefaultsAreAKwokSizedNodeInThreeZones() {
        SimulatedNodeConfig config = SimulatedNodeConfig.defaults("v1.32.4");
        SimulatedNodeTemplate template = new SimulatedNodeTemplate(config);

        assertThat(config.capacity()).containsEntry("cpu", "32").containsEntry("memory", "256Gi").containsEntry("pods", "110");
        assertThat(config.taints()).isEmpty();
        assertThat(template.nodeName(0)).isEqualTo("k4j-sim-0");
        assertThat(template.node(4, "10.40.0.5", Instant.EPOCH).getMetadata().getLabels()).containsEntry("topology.kubernetes.io/zone", "zone-b");
        assertThat(SimulatedNodeConfig.parse(null, "v1.32.4")).isEqualTo(config);
    }

    @Test
    void errorsNameTheFileAndTheField() throws IOException {
        assertThatThrownBy(() -> SimulatedNodeConfig.load(write("capacity: {cpu: lots}\n"), "v"))
                .hasMessageContaining("config.yaml").hasMessageContaining("capacity.cpu: not a quantity");
        assertThatThrownBy(() -> SimulatedNodeConfig.load(write("taints: [{key: a, effect: Sometimes}]\n"), "v"))
                .hasMessageContaining("taints[0].effect: must be one of NoExecute, NoSchedule, PreferNoSchedule");
        assertThatThrownBy(() -> SimulatedNodeConfig.load(write("capcity: {}\n"), "v"))
                .hasMessageContaining("unknown field \"capcity\"");
        assertThatThrownBy(() -> SimulatedNodeConfig.load(write("podRunSeconds: -1\n"), "v"))
                .hasMessageContaining("podRunSeconds");
        assertThatThrownBy(() -> SimulatedNodeConfig.load(write("nodeAddressCidr: 10.0.0.0\n"), "v"))
                .hasMessageContaining("nodeAddressCidr");
        assertThatThrownBy(() -> SimulatedNodeConfig.load(write("capacity: [\n"), "v"))
                .hasMessageContaining("not valid YAML");
    }

    private Path write(String yaml) throws IOException {
        return Files.writeString(directory.resolve("config.yaml"), yaml);
    }
}
