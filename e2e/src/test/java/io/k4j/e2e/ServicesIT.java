package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Services with the real kubectl on two simulated nodes (whose pods run, turn Ready and get IPs): cluster IPs and node
 * ports from their ranges with upstream's rejections, Endpoints and EndpointSlices following the deployment's pods,
 * addresses freed on delete and still taken after a restart.
 */
class ServicesIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() throws IOException {
        server = K4jServer.start(temporaryDirectory.resolve("data"), "--simulated-nodes=2");
        client = server.client();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static Kubectl kubectl() {
        return new Kubectl(server.kubeconfig());
    }

    private static boolean inDefaultServiceRange(String ip) {
        String[] octets = ip.split("\\.");
        int second = Integer.parseInt(octets[1]);
        return octets[0].equals("10") && second >= 96 && second <= 111;
    }

    private static Set<String> readyIps(Endpoints endpoints) {
        Set<String> ips = new TreeSet<>();
        if (endpoints != null && endpoints.getSubsets() != null) {
            for (EndpointSubset subset : endpoints.getSubsets()) {
                if (subset.getAddresses() != null) {
                    subset.getAddresses().stream().map(EndpointAddress::getIp).forEach(ips::add);
                }
            }
        }
        return ips;
    }

    private static Set<String> runningPodIps(String app) {
        Set<String> ips = new TreeSet<>();
        for (Pod pod : client.pods().inNamespace("default").withLabel("app", app).list().getItems()) {
            if (pod.getStatus() != null && pod.getStatus().getPodIP() != null && pod.getMetadata().getDeletionTimestamp() == null) {
                ips.add(pod.getStatus().getPodIP());
            }
        }
        return ips;
    }

    @Test
    void servicesGetAddressesEndpointsFollowPodsAndBadRequestsAreRejected() {
        // A selector-less service with user-managed endpoints, which the controllers must leave alone.
        client.services().inNamespace("default").resource(new ServiceBuilder().withNewMetadata().withName("manual").endMetadata()
                .withNewSpec().addNewPort().withPort(80).withTargetPort(new IntOrString(8080)).endPort().endSpec().build()).create();
        Endpoints manual = client.endpoints().inNamespace("default").resource(new EndpointsBuilder().withNewMetadata().withName("manual").endMetadata()
                .addNewSubset().addNewAddress().withIp("192.0.2.10").endAddress().addNewPort().withPort(8080).endPort().endSubset().build()).create();

        // The apiserver's own service has its endpoints and slice from the bootstrap, which the controllers leave alone.
        EndpointSlice apiserverSlice = client.discovery().v1().endpointSlices().inNamespace("default").withName("kubernetes").get();
        assertThat(apiserverSlice.getMetadata().getLabels()).containsEntry("kubernetes.io/service-name", "kubernetes")
                .doesNotContainKey("endpointslice.kubernetes.io/managed-by");
        assertThat(apiserverSlice.getEndpoints()).singleElement().satisfies(endpoint -> assertThat(endpoint.getConditions().getReady()).isTrue());
        assertThat(client.services().inNamespace("default").withName("kubernetes").get().getSpec().getClusterIP()).isEqualTo("10.96.0.1");

        kubectl().run("create", "deployment", "web", "--image=nginx", "--replicas=3").assertSuccess();
        client.services().inNamespace("default").resource(new ServiceBuilder().withNewMetadata().withName("web-headless").endMetadata()
                .withNewSpec().withClusterIP("None").withSelector(java.util.Map.of("app", "web")).endSpec().build()).create();
        kubectl().run("expose", "deployment", "web", "--port=80").assertSuccess();
        Service web = client.services().inNamespace("default").withName("web").get();
        String webIp = web.getSpec().getClusterIP();
        assertThat(inDefaultServiceRange(webIp)).as(webIp + " in 10.96.0.0/12").isTrue();
        assertThat(web.getSpec().getClusterIPs()).containsExactly(webIp);
        assertThat(kubectl().run("get", "service", "web").assertSuccess().stdout()).containsPattern("web\\s+ClusterIP\\s+" + webIp.replace(".", "\\.") + "\\s+<none>\\s+80/TCP");

        // The endpoints list the three pods once they run and are ready.
        await("three ready endpoints").atMost(TIMEOUT).untilAsserted(() -> {
            Set<String> podIps = runningPodIps("web");
            assertThat(podIps).hasSize(3);
            assertThat(readyIps(client.endpoints().inNamespace("default").withName("web").get())).isEqualTo(podIps);
        });
        await("the headless service's endpoints").atMost(TIMEOUT).untilAsserted(() -> {
            Endpoints headless = client.endpoints().inNamespace("default").withName("web-headless").get();
            assertThat(readyIps(headless)).isEqualTo(runningPodIps("web"));
            assertThat(headless.getMetadata().getLabels()).containsKey("service.kubernetes.io/headless");
        });
        assertThat(client.services().inNamespace("default").withName("web-headless").get().getSpec().getClusterIPs()).containsExactly("None");
        String table = kubectl().run("get", "endpoints", "web").assertSuccess().stdout();
        for (String ip : runningPodIps("web")) {
            assertThat(table).contains(ip + ":80");
        }
        Endpoints endpoints = client.endpoints().inNamespace("default").withName("web").get();
        // Not asserted here: endpoints.kubernetes.io/last-change-trigger-time, which upstream clears whenever a write has
        // no new pod or service change behind it, so its presence at this moment depends on how the syncs fell
        // (EndpointsControllerTest covers it).
        assertThat(endpoints.getSubsets().get(0).getAddresses()).allSatisfy(address -> {
            assertThat(address.getTargetRef().getKind()).isEqualTo("Pod");
            assertThat(address.getNodeName()).startsWith("k4j-sim-");
        });
        await("an EndpointSlice with the three pods").atMost(TIMEOUT).untilAsserted(() -> {
            List<EndpointSlice> slices = client.discovery().v1().endpointSlices().inNamespace("default").withLabel("kubernetes.io/service-name", "web").list().getItems();
            assertThat(slices).singleElement().satisfies(slice -> {
                assertThat(slice.getAddressType()).isEqualTo("IPv4");
                assertThat(slice.getMetadata().getLabels()).containsEntry("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io");
                assertThat(slice.getEndpoints()).hasSize(3).allSatisfy(endpoint -> assertThat(endpoint.getConditions().getReady()).isTrue());
            });
        });

        // Scaling to zero empties the endpoints.
        kubectl().run("scale", "deployment", "web", "--replicas=0").assertSuccess();
        await("no endpoints").atMost(TIMEOUT).untilAsserted(() ->
                assertThat(readyIps(client.endpoints().inNamespace("default").withName("web").get())).isEmpty());
        assertThat(kubectl().run("get", "endpoints", "web").assertSuccess().stdout()).containsPattern("web\\s+<none>");

        // Node ports.
        kubectl().run("create", "service", "nodeport", "np", "--tcp=80:8080").assertSuccess();
        Service nodePortService = client.services().inNamespace("default").withName("np").get();
        int nodePort = nodePortService.getSpec().getPorts().get(0).getNodePort();
        assertThat(nodePort).isBetween(30000, 32767);

        // Requested values that are taken or outside the ranges, with upstream's messages.
        Kubectl.Result takenIp = kubectl().run("create", "service", "clusterip", "taken", "--clusterip=" + webIp, "--tcp=80:80");
        assertThat(takenIp.exitCode()).isNotZero();
        assertThat(takenIp.stderr()).contains("Service \"taken\" is invalid: spec.clusterIPs: Invalid value: []string{\"" + webIp + "\"}: failed to allocate IP "
                + webIp + ": provided IP is already allocated");
        Kubectl.Result outside = kubectl().run("create", "service", "clusterip", "outside", "--clusterip=1.1.1.1", "--tcp=80:80");
        assertThat(outside.stderr()).contains("Service \"outside\" is invalid: spec.clusterIPs: Invalid value: []string{\"1.1.1.1\"}: failed to allocate IP 1.1.1.1: "
                + "the provided IP (1.1.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12");
        Kubectl.Result takenPort = kubectl().run("create", "service", "nodeport", "np2", "--tcp=80:8080", "--node-port=" + nodePort);
        assertThat(takenPort.stderr()).contains("Service \"np2\" is invalid: spec.ports[0].nodePort: Invalid value: " + nodePort + ": provided port is already allocated");
        Kubectl.Result outsidePort = kubectl().run("create", "service", "nodeport", "np3", "--tcp=80:8080", "--node-port=8080");
        assertThat(outsidePort.stderr()).contains("Service \"np3\" is invalid: spec.ports[0].nodePort: Invalid value: 8080: "
                + "provided port is not in the valid range. The range of valid ports is 30000-32767");

        // Deleting a service frees its address for the next one.
        kubectl().run("delete", "service", "web").assertSuccess();
        kubectl().run("create", "service", "clusterip", "reuse", "--clusterip=" + webIp, "--tcp=80:80").assertSuccess();
        assertThat(client.services().inNamespace("default").withName("reuse").get().getSpec().getClusterIP()).isEqualTo(webIp);

        // The user's endpoints of the selector-less service were never rewritten.
        assertThat(client.endpoints().inNamespace("default").withName("manual").get().getMetadata().getResourceVersion())
                .isEqualTo(manual.getMetadata().getResourceVersion());

        assertThat(client.discovery().v1().endpointSlices().inNamespace("default").withLabel("kubernetes.io/service-name", "kubernetes").list().getItems())
                .extracting(slice -> slice.getMetadata().getName()).containsExactly("kubernetes");

        // A restart keeps what is allocated.
        server.restart();
        Kubectl.Result afterRestart = kubectl().run("create", "service", "clusterip", "again", "--clusterip=" + webIp, "--tcp=80:80");
        assertThat(afterRestart.stderr()).contains("provided IP is already allocated");
        Kubectl.Result portAfterRestart = kubectl().run("create", "service", "nodeport", "np4", "--tcp=80:8080", "--node-port=" + nodePort);
        assertThat(portAfterRestart.stderr()).contains("provided port is already allocated");
        kubectl().run("delete", "service", "np").assertSuccess();
        kubectl().run("create", "service", "nodeport", "np5", "--tcp=80:8080", "--node-port=" + nodePort).assertSuccess();
    }
}
