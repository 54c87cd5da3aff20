package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kube-proxy inside {@code k4j server} (root only): Services and EndpointSlices made with kubectl become iptables rules
 * within seconds, a service without endpoints is rejected, a deleted service loses its chains. The server programs a
 * network namespace of the test's own ({@code --kube-proxy-network-namespace}), never the host's tables.
 */
class KubeProxyIT {
    private static final String SERVICE_CHAIN_PREFIX = "KUBE-SVC-";

    @TempDir
    Path temporaryDirectory;

    private String namespace;

    @BeforeEach
    void createNetworkNamespace() throws Exception {
        assumeThat(System.getProperty("user.name")).as("kube-proxy needs root").isEqualTo("root");
        namespace = "k4jtest-" + UUID.randomUUID().toString().substring(0, 8);
        HostCommand.run("ip", "netns", "add", namespace);
    }

    @AfterEach
    void deleteNetworkNamespace() throws Exception {
        if (namespace != null) {
            HostCommand.run("ip", "netns", "delete", namespace);
        }
    }

    @Test
    void servicesAndEndpointSlicesBecomeRulesAndGoAway() throws Exception {
        try (K4jServer server = K4jServer.start(temporaryDirectory.resolve("data"), "--kube-proxy-network-namespace", namespace)) {
            Kubectl kubectl = server.kubectl();
            kubectl.run("""
                    apiVersion: v1
                    kind: Service
                    metadata: {name: proxy-it, namespace: default}
                    spec:
                      clusterIP: 10.96.200.17
                      ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP}]
                    ---
                    apiVersion: discovery.k8s.io/v1
                    kind: EndpointSlice
                    metadata:
                      name: proxy-it-abcde
                      namespace: default
                      labels: {kubernetes.io/service-name: proxy-it}
                    addressType: IPv4
                    ports: [{name: http, port: 8080, protocol: TCP}]
                    endpoints:
                    - addresses: [10.42.0.7]
                      conditions: {ready: true}
                    - addresses: [10.42.0.8]
                      conditions: {ready: true}
                    """, java.util.Map.of(), "apply", "-f", "-").assertSuccess();

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(iptablesSave("nat"))
                    .contains("-d 10.96.200.17/32 -p tcp -m comment --comment \"default/proxy-it:http cluster IP\" -m tcp --dport 80 -j "
                            + SERVICE_CHAIN_PREFIX)
                    .contains("--to-destination 10.42.0.7:8080", "--to-destination 10.42.0.8:8080")
                    .contains("--probability 0.50000000000"));
            assertThat(HostCommand.run("iptables-save", "-t", "nat")).as("the host's tables are untouched").doesNotContain("default/proxy-it:http");

            kubectl.run("delete", "endpointslice", "proxy-it-abcde").assertSuccess();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(iptablesSave("filter")).contains("\"default/proxy-it:http has no endpoints\"");
                assertThat(iptablesSave("nat")).doesNotContain("default/proxy-it:http", "10.42.0.7", "10.42.0.8");
            });

            kubectl.run("delete", "service", "proxy-it").assertSuccess();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(iptablesSave("filter")).doesNotContain("default/proxy-it"));
        }
    }

    private String iptablesSave(String table) throws Exception {
        return HostCommand.run("ip", "netns", "exec", namespace, "iptables-save", "-t", table);
    }
}
