package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster IP and node port allocation on a real etcd with custom ranges ({@code --service-cluster-ip-range},
 * {@code --service-node-port-range}): concurrent creates get distinct values, and a restart rebuilds what is taken
 * from the stored services.
 */
class ServiceAllocationEtcdIT {
    @TempDir
    static Path temporaryDirectory;

    private static EtcdBackedServer cluster;
    private static K4jServer server;

    @BeforeAll
    static void startServer() {
        cluster = EtcdBackedServer.start(temporaryDirectory.resolve("data"),
                "--service-cluster-ip-range=10.100.0.0/24", "--service-node-port-range=31000-31099");
        server = cluster.server();
    }

    @AfterAll
    static void stopServer() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static KubernetesClient client() throws IOException {
        return server.client();
    }

    private static Service nodePortService(String name, String clusterIp, int nodePort) {
        return new ServiceBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withType("NodePort").withClusterIP(clusterIp).withSelector(java.util.Map.of("app", name))
                .addNewPort().withPort(80).withNodePort(nodePort == 0 ? null : nodePort).endPort().endSpec().build();
    }

    @Test
    void concurrentCreatesGetDistinctValuesThatSurviveARestart() throws Exception {
        List<Service> created = new ArrayList<>();
        try (KubernetesClient client = client()) {
            assertThat(client.services().inNamespace("default").withName("kubernetes").get().getSpec().getClusterIP()).isEqualTo("10.100.0.1");
            ExecutorService executor = Executors.newFixedThreadPool(8);
            try {
                List<Callable<Service>> creates = new ArrayList<>();
                for (int index = 0; index < 24; index++) {
                    String name = "svc-" + index;
                    creates.add(() -> client.services().inNamespace("default").resource(nodePortService(name, null, 0)).create());
                }
                for (Future<Service> result : executor.invokeAll(creates)) {
                    created.add(result.get());
                }
            } finally {
                executor.shutdownNow();
            }
        }
        Set<String> addresses = new HashSet<>();
        Set<Integer> nodePorts = new HashSet<>();
        for (Service service : created) {
            addresses.add(service.getSpec().getClusterIP());
            nodePorts.add(service.getSpec().getPorts().get(0).getNodePort());
        }
        assertThat(addresses).hasSize(24).allSatisfy(ip -> assertThat(ip).startsWith("10.100.0.").isNotEqualTo("10.100.0.1"));
        assertThat(nodePorts).hasSize(24).allSatisfy(port -> assertThat(port).isBetween(31000, 31099));

        server.restart();

        Service first = created.get(0);
        String takenIp = first.getSpec().getClusterIP();
        int takenPort = first.getSpec().getPorts().get(0).getNodePort();
        try (KubernetesClient client = client()) {
            assertThatThrownBy(() -> client.services().inNamespace("default").resource(nodePortService("copy-ip", takenIp, 0)).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getStatus().getMessage()).isEqualTo("Service \"copy-ip\" is invalid: spec.clusterIPs: Invalid value: []string{\""
                                + takenIp + "\"}: failed to allocate IP " + takenIp + ": provided IP is already allocated");
                    });
            assertThatThrownBy(() -> client.services().inNamespace("default").resource(nodePortService("copy-port", null, takenPort)).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getStatus().getMessage())
                            .isEqualTo("Service \"copy-port\" is invalid: spec.ports[0].nodePort: Invalid value: " + takenPort + ": provided port is already allocated"));
            assertThatThrownBy(() -> client.services().inNamespace("default").resource(nodePortService("outside", "10.96.0.10", 0)).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getStatus().getMessage())
                            .endsWith("the provided IP (10.96.0.10) is not in the valid range. The range of valid IPs is 10.100.0.0/24"));

            client.services().inNamespace("default").withName(first.getMetadata().getName()).delete();
            Service reused = client.services().inNamespace("default").resource(nodePortService("reused", takenIp, takenPort)).create();
            assertThat(reused.getSpec().getClusterIP()).isEqualTo(takenIp);
            assertThat(reused.getSpec().getPorts().get(0).getNodePort()).isEqualTo(takenPort);
        }
    }
}
