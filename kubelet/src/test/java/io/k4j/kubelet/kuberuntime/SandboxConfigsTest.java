package io.k4j.kubelet.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.k4j.kubelet.KubeletConfig;
import io.k4j.kubelet.cri.v1.DNSConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxConfigsTest {
    @TempDir
    Path directory;

    @Test
    void clusterFirstWithoutClusterDnsUsesTheHostsReachableNameServers() throws Exception {
        DNSConfig dns = sandboxConfigs(List.of()).dnsConfig(pod("ClusterFirst"));

        assertThat(dns.getServersList()).containsExactly("10.0.0.2");
        assertThat(dns.getSearchesList()).containsExactly("example.com");
    }

    @Test
    void clusterFirstWithClusterDnsSearchesTheClusterDomainsFirst() throws Exception {
        DNSConfig dns = sandboxConfigs(List.of("10.96.0.10")).dnsConfig(pod("ClusterFirst"));

        assertThat(dns.getServersList()).containsExactly("10.96.0.10");
        assertThat(dns.getSearchesList()).containsExactly("team.svc.cluster.local", "svc.cluster.local", "cluster.local", "example.com");
        assertThat(dns.getOptionsList()).contains("ndots:5");
    }

    private SandboxConfigs sandboxConfigs(List<String> clusterDns) throws Exception {
        Path resolvConf = directory.resolve("resolv.conf");
        // A loopback resolver (systemd-resolved style) cannot be reached from a pod's network namespace.
        Files.writeString(resolvConf, "nameserver 127.0.0.53\nnameserver 10.0.0.2\nsearch example.com\n");
        return new SandboxConfigs(new KubeletConfig("node-a", directory.resolve("kubelet"), List.of("192.0.2.10"), clusterDns,
                "cluster.local", resolvConf, Map.of(), 110, Duration.ofSeconds(10), Duration.ofSeconds(1), Map.of(), KubeletConfig.DEFAULT_PORT));
    }

    private static Pod pod(String dnsPolicy) {
        return new PodBuilder().withNewMetadata().withName("web").withNamespace("team").withUid("uid-1").endMetadata()
                .withNewSpec().withDnsPolicy(dnsPolicy).addNewContainer().withName("c").withImage("busybox").endContainer().endSpec()
                .build();
    }
}
