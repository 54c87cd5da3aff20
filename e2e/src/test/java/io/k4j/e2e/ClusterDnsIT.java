package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * {@code k4j server --simulated-nodes=2} answers cluster DNS on its {@code --cluster-dns-bind} address: the
 * {@code kubernetes} service, a headless service's ready endpoints (running simulated pods) by name and by SRV, and
 * NXDOMAIN with the zone's SOA. The headless service has no selector and its EndpointSlice is written here, so the
 * test does not depend on the endpointslice controller. Only names inside {@code cluster.local} are asked: nothing
 * leaves loopback.
 */
class ClusterDnsIT {
    private static final String NAMESPACE = "dns-test";
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;
    private static SimpleResolver resolver;
    private static SimpleResolver tcpResolver;

    @BeforeAll
    static void start() throws IOException {
        int port;
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            port = socket.getLocalPort();
        }
        server = K4jServer.start(temporaryDirectory.resolve("data"), "--simulated-nodes=2", "--cluster-dns-bind", "127.0.0.1:" + port);
        client = server.client();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        try {
            client.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build()).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
        resolver = new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        resolver.setTimeout(Duration.ofSeconds(3));
        tcpResolver = new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        tcpResolver.setTimeout(Duration.ofSeconds(3));
        tcpResolver.setTCP(true);
        // The DNS server starts with the other components once the apiserver is ready: wait until it listens.
        await().atMost(TIMEOUT).ignoreExceptionsInstanceOf(IOException.class)
                .until(() -> resolver.send(query("kubernetes.default.svc.cluster.local.", Type.A)).getRcode() == Rcode.NOERROR);
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

    @Test
    void kubernetesServiceResolvesToItsClusterIp() {
        String clusterIp = client.services().inNamespace("default").withName("kubernetes").get().getSpec().getClusterIP();

        await().atMost(TIMEOUT).untilAsserted(() -> {
            Message response = resolver.send(query("kubernetes.default.svc.cluster.local.", Type.A));
            assertThat(response.getRcode()).isEqualTo(Rcode.NOERROR);
            assertThat(response.getHeader().getFlag(Flags.AA)).isTrue();
            assertThat(addresses(response)).containsExactly(clusterIp);
        });
        await().atMost(TIMEOUT).untilAsserted(() ->
                assertThat(addresses(tcpResolver.send(query("kubernetes.default.svc.cluster.local.", Type.A)))).containsExactly(clusterIp));
    }

    @Test
    void kubeDnsServiceExistsAtTheTenthAddressOfTheServiceRange() {
        Service kubeDns = client.services().inNamespace("kube-system").withName("kube-dns").get();

        assertThat(kubeDns.getSpec().getClusterIP()).isEqualTo("10.96.0.10");
        assertThat(kubeDns.getMetadata().getLabels()).containsEntry("k8s-app", "kube-dns");
        assertThat(kubeDns.getSpec().getPorts()).extracting(port -> port.getName() + "/" + port.getProtocol() + "/" + port.getPort())
                .containsExactlyInAnyOrder("dns/UDP/53", "dns-tcp/TCP/53");
    }

    @Test
    void headlessServiceAnswersItsReadyEndpointsAndSrvForItsNamedPort() throws Exception {
        List<String> podIps = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            client.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("db-" + i).withLabels(Map.of("app", "db")).endMetadata()
                    .withNewSpec().addNewContainer().withName("db").withImage("busybox").addNewPort().withName("sql").withContainerPort(5432).endPort()
                    .endContainer().endSpec().build()).create();
        }
        for (int i = 0; i < 2; i++) {
            String name = "db-" + i;
            Pod running = await().atMost(TIMEOUT).until(() -> client.pods().inNamespace(NAMESPACE).withName(name).get(),
                    pod -> pod.getStatus() != null && pod.getStatus().getPodIP() != null && "Running".equals(pod.getStatus().getPhase()));
            podIps.add(running.getStatus().getPodIP());
        }
        client.services().inNamespace(NAMESPACE).resource(new ServiceBuilder().withNewMetadata().withName("db").endMetadata()
                .withNewSpec().withClusterIP("None").addNewPort().withName("sql").withProtocol("TCP").withPort(5432).endPort().endSpec().build()).create();
        client.discovery().v1().endpointSlices().inNamespace(NAMESPACE).resource(new EndpointSliceBuilder()
                .withNewMetadata().withName("db-manual").withLabels(Map.of("kubernetes.io/service-name", "db")).endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName("sql").withProtocol("TCP").withPort(5432).endPort()
                .withEndpoints(
                        new EndpointBuilder().withAddresses(podIps.get(0)).withHostname("db-0").withNewConditions().withReady(true).endConditions().build(),
                        new EndpointBuilder().withAddresses(podIps.get(1)).withNewConditions().withReady(true).endConditions().build(),
                        new EndpointBuilder().withAddresses("10.42.250.250").withNewConditions().withReady(false).endConditions().build())
                .build()).create();

        await().atMost(TIMEOUT).untilAsserted(() ->
                assertThat(addresses(resolver.send(query("db.dns-test.svc.cluster.local.", Type.A)))).containsExactlyInAnyOrderElementsOf(podIps));
        assertThat(addresses(resolver.send(query("db-0.db.dns-test.svc.cluster.local.", Type.A)))).containsExactly(podIps.get(0));

        Message srv = resolver.send(query("_sql._tcp.db.dns-test.svc.cluster.local.", Type.SRV));
        assertThat(srv.getSection(Section.ANSWER)).extracting(record -> ((SRVRecord) record).getPort()).containsOnly(5432);
        assertThat(srv.getSection(Section.ANSWER)).extracting(record -> ((SRVRecord) record).getTarget().toString()).containsExactlyInAnyOrder(
                "db-0.db.dns-test.svc.cluster.local.", podIps.get(1).replace('.', '-') + ".db.dns-test.svc.cluster.local.");

        String podIp = podIps.get(1);
        assertThat(addresses(resolver.send(query(podIp.replace('.', '-') + ".dns-test.pod.cluster.local.", Type.A)))).containsExactly(podIp);

        // Removing the service removes its names.
        client.services().inNamespace(NAMESPACE).withName("db").delete();
        await().atMost(TIMEOUT).untilAsserted(() ->
                assertThat(resolver.send(query("db.dns-test.svc.cluster.local.", Type.A)).getRcode()).isEqualTo(Rcode.NXDOMAIN));
    }

    @Test
    void unknownNameIsNxdomainWithTheZonesSoa() throws Exception {
        Message response = resolver.send(query("no-such-service.default.svc.cluster.local.", Type.A));

        assertThat(response.getRcode()).isEqualTo(Rcode.NXDOMAIN);
        assertThat(response.getSection(Section.AUTHORITY)).singleElement().satisfies(record -> {
            assertThat(record).isInstanceOf(SOARecord.class);
            assertThat(record.getName()).isEqualTo(Name.fromString("cluster.local."));
        });
    }

    private static Message query(String name, int type) throws Exception {
        return Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    }

    private static List<String> addresses(Message response) {
        return response.getSection(Section.ANSWER).stream().filter(ARecord.class::isInstance)
                .map(record -> ((ARecord) record).getAddress().getHostAddress()).toList();
    }
}
