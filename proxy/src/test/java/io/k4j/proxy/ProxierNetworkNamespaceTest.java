package io.k4j.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The proxier against real iptables, inside network namespaces the test creates (root only). */
class ProxierNetworkNamespaceTest {
    private static final String WEB_CHAIN = RuleGenerator.serviceChainName(new ServicePortName("default", "web", "http"), "TCP");

    private final List<Service> services = new CopyOnWriteArrayList<>();
    private final List<EndpointSlice> slices = new CopyOnWriteArrayList<>();
    private NetworkNamespace node;
    private NetworkNamespace backend;

    @BeforeEach
    void createNode() throws Exception {
        assumeThat(NetworkNamespace.canCreate()).as("needs root, ip and iptables").isTrue();
        node = NetworkNamespace.create();
    }

    @AfterEach
    void deleteNamespaces() throws Exception {
        if (backend != null) {
            backend.close();
        }
        if (node != null) {
            node.close();
        }
    }

    @Test
    void writesTheServiceChainsAndJumpsOnceAndKeepsTheNodesOwnRules() throws Exception {
        node.exec("iptables", "-t", "nat", "-N", "NODE-OWN");
        node.exec("iptables", "-t", "nat", "-A", "POSTROUTING", "-j", "NODE-OWN");
        node.exec("iptables", "-A", "INPUT", "-p", "tcp", "--dport", "22", "-j", "ACCEPT");
        services.add(service("web", "172.30.0.41", 80, "http", "ClusterIP", null));
        slices.add(slice("web", "http", 8080, "10.99.0.2", "10.99.0.3"));
        Proxier proxier = proxier();

        proxier.syncRules();
        proxier.syncRules();

        String nat = node.exec("iptables-save", "-t", "nat");
        assertThat(nat).contains(":" + WEB_CHAIN, "-A POSTROUTING -j NODE-OWN", "--to-destination 10.99.0.2:8080",
                "--to-destination 10.99.0.3:8080");
        assertThat(nat.lines().filter(line -> line.equals("-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES")))
                .hasSize(1);
        assertThat(nat.lines().filter(line -> line.startsWith("-A POSTROUTING -m comment --comment \"kubernetes postrouting rules\"")))
                .hasSize(1);
        String filter = node.exec("iptables-save", "-t", "filter");
        assertThat(filter).contains("-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT", ":KUBE-FORWARD", "-j KUBE-EXTERNAL-SERVICES");
    }

    @Test
    void removedEndpointsAndServicesLoseTheirChains() throws Exception {
        services.add(service("web", "172.30.0.41", 80, "http", "NodePort", 30080));
        slices.add(slice("web", "http", 8080, "10.99.0.2", "10.99.0.3"));
        Proxier proxier = proxier();
        proxier.syncRules();
        String removedEndpointChain = RuleGenerator.endpointChainName(new ServicePortName("default", "web", "http"), "tcp", "10.99.0.3:8080");
        assertThat(node.exec("iptables-save", "-t", "nat")).contains(":" + removedEndpointChain, "--dport 30080 -j KUBE-EXT-");

        slices.set(0, slice("web", "http", 8080, "10.99.0.2"));
        proxier.syncRules();
        assertThat(node.exec("iptables-save", "-t", "nat")).doesNotContain(removedEndpointChain).contains(":" + WEB_CHAIN);

        services.clear();
        proxier.syncRules();
        String nat = node.exec("iptables-save", "-t", "nat");
        assertThat(nat).doesNotContain("KUBE-SVC-", "KUBE-SEP-", "KUBE-EXT-").contains(":KUBE-SERVICES");
    }

    @Test
    void aPartialSyncWritesOnlyTheChangedServiceAndAFailedWriteMakesTheNextSyncRewriteEverything() throws Exception {
        services.add(service("web", "172.30.0.41", 80, "http", "ClusterIP", null));
        services.add(service("api", "172.30.0.43", 80, "http", "ClusterIP", null));
        slices.add(slice("web", "http", 8080, "10.99.0.2"));
        slices.add(slice("api", "http", 8080, "10.99.0.3"));
        Proxier proxier = proxier();
        assertThat(proxier.syncRules().full()).isTrue();
        // Flushed behind the proxier's back: only a full sync puts it back, a partial one writes what changed.
        node.exec("iptables", "-t", "nat", "-F", WEB_CHAIN);

        slices.set(1, slice("api", "http", 8080, "10.99.0.3", "10.99.0.5"));
        SyncResult partial = proxier.syncRules();

        assertThat(partial.full()).isFalse();
        assertThat(node.exec("iptables-save", "-t", "nat")).contains("--to-destination 10.99.0.5:8080").doesNotContain("-A " + WEB_CHAIN + " ");

        services.add(service("broken", "172.30.0.999", 80, "http", "ClusterIP", null));
        slices.add(slice("broken", "http", 8080, "10.99.0.6"));
        assertThatThrownBy(proxier::syncRules).isInstanceOf(IOException.class);
        services.removeIf(service -> service.getMetadata().getName().equals("broken"));
        SyncResult afterFailure = proxier.syncRules();

        assertThat(afterFailure.full()).isTrue();
        String nat = node.exec("iptables-save", "-t", "nat");
        assertThat(nat).contains("-A " + WEB_CHAIN + " ", "--to-destination 10.99.0.5:8080").doesNotContain("default/broken");
        assertThat(proxier.syncRules().restore()).as("nothing left to write").isZero();
    }

    @Test
    void aRestartedProxierRemovesStaleChainsItDidNotWrite() throws Exception {
        services.add(service("web", "172.30.0.41", 80, "http", "ClusterIP", null));
        slices.add(slice("web", "http", 8080, "10.99.0.2"));
        proxier().syncRules();
        services.clear();
        slices.clear();
        services.add(service("other", "172.30.0.50", 80, "http", "ClusterIP", null));

        proxier().syncRules();

        String nat = node.exec("iptables-save", "-t", "nat");
        assertThat(nat).doesNotContain("KUBE-SVC-", "KUBE-SEP-");
        assertThat(node.exec("iptables-save", "-t", "filter")).contains("\"default/other:http has no endpoints\"");
    }

    @Test
    void aClientReachesTheBackendThroughTheClusterIpAndIsRefusedWithoutEndpoints(@TempDir Path site) throws Exception {
        assumeThat(IptablesExecutor.findExecutable("busybox")).as("needs busybox").isNotNull();
        connectBackend();
        Files.writeString(site.resolve("index.html"), "hello from the backend\n");
        backend.background("busybox", "httpd", "-f", "-p", "8080", "-h", site.toString());
        services.add(service("web", "172.30.0.41", 80, "http", "ClusterIP", null));
        services.add(service("empty", "172.30.0.42", 80, "http", "ClusterIP", null));
        slices.add(slice("web", "http", 8080, "10.99.0.2"));
        proxier().syncRules();

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(httpGet("172.30.0.41").output()).startsWith("HTTP/1.1 200 OK").endsWith("hello from the backend\n"));
        NetworkNamespace.Outcome refused = httpGet("172.30.0.42");
        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.output()).contains("refused");
    }

    @Test
    void conntrackEntriesOfRemovedUdpEndpointsAreDeleted() throws Exception {
        assumeThat(IptablesExecutor.findExecutable("conntrack")).as("needs conntrack").isNotNull();
        assumeThat(IptablesExecutor.findExecutable("bash")).as("needs bash for /dev/udp").isNotNull();
        connectBackend();
        services.add(new ServiceBuilder(service("dns", "172.30.0.53", 53, "dns", "ClusterIP", null))
                .editSpec().editFirstPort().withProtocol("UDP").endPort().endSpec().build());
        slices.add(new EndpointSliceBuilder(slice("dns", "dns", 5353, "10.99.0.2")).editFirstPort().withProtocol("UDP").endPort().build());
        Proxier proxier = proxier();
        proxier.syncRules();
        node.exec("bash", "-c", "echo query > /dev/udp/172.30.0.53/53");
        assertThat(node.exec("conntrack", "-L", "-p", "udp", "--orig-dst", "172.30.0.53")).contains("src=10.99.0.2");

        slices.clear();
        proxier.syncRules();

        assertThat(node.attempt("conntrack", "-L", "-p", "udp", "--orig-dst", "172.30.0.53").output()).doesNotContain("src=10.99.0.2");
    }

    @Test
    void reportsTheProgrammingLatencyOfEachNewTriggerTimeOnce() throws Exception {
        Instant start = Instant.parse("2026-01-01T10:00:00Z");
        AtomicReference<Instant> now = new AtomicReference<>(start);
        services.add(service("web", "172.30.0.41", 80, "http", "ClusterIP", null));
        services.add(service("old", "172.30.0.42", 80, "http", "ClusterIP", null));
        slices.add(triggered(slice("web", "http", 8080, "10.99.0.2"), "2026-01-01T10:00:01.250Z"));
        slices.add(triggered(slice("old", "http", 8080, "10.99.0.3"), "2026-01-01T09:59:59Z"));
        Proxier proxier = new Proxier(new RuleGenerator(Optional.of("10.98.0.0/16")), new IptablesExecutor(node.prefix()),
                () -> List.copyOf(services), () -> List.copyOf(slices), Duration.ofSeconds(1), Duration.ofSeconds(30), now::get);

        now.set(Instant.parse("2026-01-01T10:00:02Z"));
        SyncResult first = proxier.syncRules();
        SyncResult unchanged = proxier.syncRules();
        now.set(Instant.parse("2026-01-01T10:00:05Z"));
        slices.set(0, triggered(slice("web", "http", 8080, "10.99.0.2", "10.99.0.4"), "2026-01-01T10:00:04.900+00:00"));
        SyncResult second = proxier.syncRules();

        assertThat(first.full()).isTrue();
        assertThat(first.servicePorts()).isEqualTo(2);
        assertThat(first.programmingLatencies()).as("a trigger time from before the proxier started is not its latency")
                .containsExactly(new SyncResult.ProgrammingLatency("default/web", Duration.ofMillis(750)));
        assertThat(unchanged.programmingLatencies()).isEmpty();
        assertThat(unchanged.restore()).as("nothing to write").isZero();
        assertThat(second.full()).isFalse();
        assertThat(second.restore()).isPositive();
        assertThat(second.programmingLatencies()).containsExactly(new SyncResult.ProgrammingLatency("default/web", Duration.ofMillis(100)));
        assertThat(node.exec("iptables-save", "-t", "nat")).contains("--to-destination 10.99.0.4:8080");
    }

    private static EndpointSlice triggered(EndpointSlice slice, String triggerTime) {
        return new EndpointSliceBuilder(slice).editMetadata().addToAnnotations(Proxier.LAST_CHANGE_TRIGGER_TIME, triggerTime).endMetadata().build();
    }

    /** A backend namespace at 10.99.0.2 behind a veth pair; the node at 10.99.0.1 routes everything to it. */
    private void connectBackend() throws Exception {
        backend = NetworkNamespace.create();
        String veth = "k4jv" + backend.name().substring(8, 12);
        NetworkNamespace.run(List.of("ip", "link", "add", veth + "a", "netns", node.name(), "type", "veth", "peer", "name", veth + "b",
                "netns", backend.name()));
        node.exec("ip", "addr", "add", "10.99.0.1/24", "dev", veth + "a");
        node.exec("ip", "link", "set", veth + "a", "up");
        node.exec("ip", "route", "add", "default", "dev", veth + "a");
        backend.exec("ip", "addr", "add", "10.99.0.2/24", "dev", veth + "b");
        backend.exec("ip", "link", "set", veth + "b", "up");
    }

    /** busybox wget crashes in a static build here, so speak HTTP/1.0 through busybox nc. */
    private NetworkNamespace.Outcome httpGet(String address) throws Exception {
        return node.attempt("sh", "-c", "printf 'GET / HTTP/1.0\\r\\n\\r\\n' | busybox nc -w 5 " + address + " 80");
    }

    private Proxier proxier() {
        return new Proxier(new RuleGenerator(Optional.of("10.98.0.0/16")), new IptablesExecutor(node.prefix()),
                () -> List.copyOf(services), () -> List.copyOf(slices), Duration.ofSeconds(1), Duration.ofSeconds(30));
    }

    private static Service service(String name, String clusterIp, int port, String portName, String type, Integer nodePort) {
        return new ServiceBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata()
                .withNewSpec().withType(type).withClusterIP(clusterIp)
                .addNewPort().withName(portName).withProtocol("TCP").withPort(port).withNodePort(nodePort).endPort()
                .endSpec().build();
    }

    private static EndpointSlice slice(String service, String portName, int port, String... addresses) {
        EndpointSliceBuilder builder = new EndpointSliceBuilder().withNewMetadata().withNamespace("default").withName(service + "-abcde")
                .addToLabels(EndpointsTracker.SERVICE_NAME_LABEL, service).endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName(portName).withProtocol("TCP").withPort(port).endPort();
        for (String address : addresses) {
            builder.addNewEndpoint().withAddresses(address).withNewConditions().withReady(true).withServing(true).withTerminating(false)
                    .endConditions().endEndpoint();
        }
        return builder.build();
    }
}
