package io.k4j.kubelet.cni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CniConfigTest {
    @TempDir
    Path directory;

    @Test
    void bridgeWithHostLocalIpamOverThePodCidrAndPortmap() throws Exception {
        JsonNode conflist = new ObjectMapper().readTree(CniConfig.forPodCidr("10.42.3.0/24", Path.of("/var/lib/k4j/cni/networks")).toJson());

        assertThat(conflist.path("cniVersion").asText()).isEqualTo("1.0.0");
        assertThat(conflist.path("name").asText()).isEqualTo("k4j");
        JsonNode bridge = conflist.path("plugins").get(0);
        assertThat(bridge.path("type").asText()).isEqualTo("bridge");
        assertThat(bridge.path("bridge").asText()).isEqualTo("cni0");
        assertThat(bridge.path("isGateway").asBoolean()).isTrue();
        // The node masquerades the pod CIDR's egress with one rule (PodEgressMasquerade), not a chain per pod.
        assertThat(bridge.path("ipMasq").asBoolean()).isFalse();
        assertThat(bridge.path("hairpinMode").asBoolean()).isTrue();
        assertThat(bridge.path("ipam").path("type").asText()).isEqualTo("host-local");
        assertThat(bridge.path("ipam").path("ranges").get(0).get(0).path("subnet").asText()).isEqualTo("10.42.3.0/24");
        assertThat(bridge.path("ipam").path("routes").get(0).path("dst").asText()).isEqualTo("0.0.0.0/0");
        assertThat(bridge.path("ipam").path("dataDir").asText()).isEqualTo("/var/lib/k4j/cni/networks");
        JsonNode portmap = conflist.path("plugins").get(1);
        assertThat(portmap.path("type").asText()).isEqualTo("portmap");
        assertThat(portmap.path("capabilities").path("portMappings").asBoolean()).isTrue();
        assertThat(portmap.path("snat").asBoolean()).isTrue();
        assertThat(conflist.path("plugins")).hasSize(2);
    }

    @Test
    void theBridgeMasqueradesEachPodWhenAsked() throws Exception {
        JsonNode conflist = new ObjectMapper().readTree(
                CniConfig.forPodCidr("10.42.3.0/24", Path.of("/var/lib/k4j/cni/networks")).withBridgeMasquerade().toJson());

        assertThat(conflist.path("plugins").get(0).path("ipMasq").asBoolean()).isTrue();
    }

    @Test
    void withoutAnIpamDataDirectoryTheHostLocalDefaultApplies() throws Exception {
        JsonNode conflist = new ObjectMapper().readTree(new CniConfig("k4j", "cni0", "10.42.0.0/24", Optional.empty(), false).toJson());

        assertThat(conflist.path("plugins").get(0).path("ipam").has("dataDir")).isFalse();
    }

    @Test
    void writesTheConflistAtomicallyAndRewritesItOnlyWhenItChanges() throws Exception {
        Path file = CniConfig.forPodCidr("10.42.0.0/24", directory.resolve("ipam")).write(directory.resolve("net.d"));
        assertThat(file).isEqualTo(directory.resolve("net.d").resolve("10-k4j.conflist"));
        assertThat(Files.readString(file)).contains("\"subnet\" : \"10.42.0.0/24\"");
        FileTime written = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(file, written);

        CniConfig.forPodCidr("10.42.0.0/24", directory.resolve("ipam")).write(directory.resolve("net.d"));
        assertThat(Files.getLastModifiedTime(file)).isEqualTo(written);

        CniConfig.forPodCidr("10.42.7.0/24", directory.resolve("ipam")).write(directory.resolve("net.d"));
        assertThat(Files.readString(file)).contains("\"subnet\" : \"10.42.7.0/24\"");
        try (Stream<Path> files = Files.list(directory.resolve("net.d"))) {
            assertThat(files).containsExactly(file); // no temporary file left behind
        }
    }

    @Test
    void rejectsWhatIsNotACidrOrAnInterfaceName() {
        assertThatThrownBy(() -> CniConfig.forPodCidr("10.42.0.0", directory)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CniConfig.forPodCidr("10.42.0.0/33", directory)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CniConfig.forPodCidr("example.com/24", directory)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CniConfig("k4j", "a-bridge-name-too-long", "10.42.0.0/24", Optional.empty(), false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
