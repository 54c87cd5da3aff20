package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 5's acceptance with the real kubectl, as root on a real node with kube-proxy on the host's iptables: a
 * deployment exposed as a service is reached by name from a busybox pod through the cluster DNS and kube-proxy,
 * balanced over its pods; headless and SRV answers; a NodePort on the node's address (also with
 * externalTrafficPolicy Local); a service without endpoints refuses at once and answers again after scaling up;
 * services keep working across a server restart; deleting a service removes its rules. One server for the class; the
 * tests build on each other in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServiceNetworkAcceptanceIT {
    private static final Duration POD_START = Duration.ofMinutes(3);
    private static final String CLIENT = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: client
            spec:
              terminationGracePeriodSeconds: 1
              containers:
              - name: busybox
                image: busybox
                command: ["sleep", "3600"]
            """;
    private static final String HEADLESS = """
            apiVersion: v1
            kind: Service
            metadata:
              name: web-headless
            spec:
              clusterIP: None
              selector: {app: web}
              ports: [{name: http, port: 80, protocol: TCP}]
            """;

    private static K4jServer server;
    private static Kubectl kubectl;
    private static String clusterIp;

    @BeforeAll
    static void start() {
        K4jServer.assumeRealNodePossible();
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/iptables")) || Files.isExecutable(Path.of("/sbin/iptables")),
                "iptables is not installed");
        server = K4jServer.startWithNodeAndHostKubeProxy(Path.of("/tmp").resolve("k4j-svcnet-" + ProcessHandle.current().pid()));
        kubectl = server.kubectl();
        server.awaitNodeReady();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server == null) {
            return;
        }
        try {
            // Let the kubelet tear the pods' sandboxes (network namespaces, veths, IPs) down before it stops.
            kubectl.run("delete", "deployment", "--all", "--wait=true", "--timeout=60s");
            kubectl.run("delete", "pod", "--all", "--wait=true", "--timeout=60s");
        } finally {
            // Also removes every KUBE-* chain from the host's tables (failing if it cannot).
            server.closeAndRemoveNode(Path.of("target", "ServiceNetworkAcceptanceIT-server.log"));
        }
    }

    @Test
    @Order(1)
    void aServiceIsReachedByNameFromAPodAndBalancedOverItsPods() {
        kubectl.run("create", "deployment", "web", "--image=nginx", "--replicas=3").assertSuccess();
        kubectl.run("expose", "deployment", "web", "--port=80").assertSuccess();
        kubectl.run(CLIENT, Map.of(), "create", "-f", "-").assertSuccess();
        kubectl.run("rollout", "status", "deployment/web", "--timeout=" + POD_START.toSeconds() + "s").assertSuccess();
        kubectl.run("wait", "pod/client", "--for=condition=Ready", "--timeout=" + POD_START.toSeconds() + "s").assertSuccess();
        clusterIp = kubectl.run("get", "service", "web", "-o", "jsonpath={.spec.clusterIP}").assertSuccess().stdout();

        assertThat(exec("client", "cat", "/etc/resolv.conf").assertSuccess().stdout())
                .contains("nameserver 10.96.0.10", "search default.svc.cluster.local svc.cluster.local cluster.local",
                        "options ndots:5");
        Set<String> pods = webPodsWithTheirNames();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(exec("client", "wget", "-qO-", "http://web").assertSuccess().stdout()).contains("Welcome to nginx!");
            assertThat(exec("client", "wget", "-qO-", "http://web.default.svc.cluster.local").assertSuccess().stdout())
                    .contains("Welcome to nginx!");
        });
        // Every connection is a new random pick among three: 30 requests miss one of them with probability ~2e-5.
        String answers = exec("client", "sh", "-c", "for i in $(seq 1 30); do wget -qO- http://web/name.txt; done")
                .assertSuccess().stdout();
        assertThat(new TreeSet<>(Arrays.asList(answers.trim().split("\\s+")))).isEqualTo(pods);
    }

    @Test
    @Order(2)
    void dnsAnswersServicesHeadlessServicesAndSrv() {
        // busybox's nslookup tries every search domain and exits 1 when any of them is NXDOMAIN, as against CoreDNS.
        assertThat(exec("client", "nslookup", "web").stdout())
                .contains("Name:\tweb.default.svc.cluster.local\nAddress: " + clusterIp);

        kubectl.run(HEADLESS, Map.of(), "create", "-f", "-").assertSuccess();
        List<String> podIps = Arrays.asList(kubectl.run("get", "pods", "-l", "app=web", "-o",
                "jsonpath={.items[*].status.podIP}").assertSuccess().stdout().split(" "));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String answer = exec("client", "nslookup", "web-headless").stdout();
            assertThat(addresses(answer)).containsExactlyInAnyOrderElementsOf(podIps);
        });
        String srv = exec("client", "nslookup", "-type=SRV", "_http._tcp.web-headless.default.svc.cluster.local").stdout();
        // One SRV record per endpoint: priority 0, weight (CoreDNS: 100 / number of records), port 80, the pod's name.
        assertThat(srv.lines().filter(line -> line.contains("_http._tcp.web-headless.default.svc.cluster.local")
                && line.contains(" 80 ")).count()).as(srv).isEqualTo(3);
    }

    @Test
    @Order(3)
    void aNodePortAnswersOnTheNodesAddressAlsoWithExternalTrafficPolicyLocal() throws Exception {
        kubectl.run("expose", "deployment", "web", "--name=web-nodeport", "--type=NodePort", "--port=80").assertSuccess();
        String nodePort = kubectl.run("get", "service", "web-nodeport", "-o", "jsonpath={.spec.ports[0].nodePort}")
                .assertSuccess().stdout();
        String nodeIp = kubectl.run("get", "nodes", "-o",
                "jsonpath={.items[0].status.addresses[?(@.type=='InternalIP')].address}").assertSuccess().stdout();
        URI uri = URI.create("http://" + nodeIp + ":" + nodePort + "/");
        // Until kube-proxy has programmed the new port, the node refuses the connection: retry through that too.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(IOException.class)
                .untilAsserted(() -> assertThat(httpGet(uri)).contains("Welcome to nginx!"));

        kubectl.run("patch", "service", "web-nodeport", "-p", "{\"spec\":{\"externalTrafficPolicy\":\"Local\"}}").assertSuccess();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(iptablesSave("nat"))
                .contains("\"pod traffic for default/web-nodeport external destinations\"")
                .contains("KUBE-SVL-"));
        // Every endpoint is on this node: the node's own port still answers.
        assertThat(httpGet(uri)).contains("Welcome to nginx!");
        assertThat(exec("client", "wget", "-qO-", "http://" + nodeIp + ":" + nodePort + "/").assertSuccess().stdout())
                .contains("Welcome to nginx!");
    }

    @Test
    @Order(4)
    void scaledToZeroTheServiceRefusesAndScaledUpItAnswersAgain() {
        kubectl.run("scale", "deployment", "web", "--replicas=0").assertSuccess();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(iptablesSave("filter"))
                .contains("\"default/web has no endpoints\""));
        // REJECT, as upstream: the client learns at once instead of waiting for a timeout (a dropped connection would
        // outlast kubectl's own limit). No wget -T: Debian's busybox 1.35 lacks FEATURE_WGET_TIMEOUT and crashes on it.
        Kubectl.Result refused = exec("client", "wget", "-qO-", "http://web");
        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.stderr() + refused.stdout()).contains("Connection refused");

        kubectl.run("scale", "deployment", "web", "--replicas=3").assertSuccess();
        await().atMost(POD_START).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                assertThat(exec("client", "wget", "-qO-", "http://web").assertSuccess().stdout()).contains("Welcome to nginx!"));
    }

    @Test
    @Order(5)
    void servicesKeepWorkingAcrossAServerRestart() {
        server.restart();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            assertThat(exec("client", "wget", "-qO-", "http://web").assertSuccess().stdout()).contains("Welcome to nginx!");
            assertThat(exec("client", "nslookup", "web").stdout()).contains("Address: " + clusterIp);
        });
    }

    @Test
    @Order(6)
    void deletingTheServiceRemovesItsRules() {
        assertThat(serviceRules(iptablesSave("nat"))).anyMatch(rule -> rule.startsWith("-A KUBE-SVC-"));
        kubectl.run("delete", "service", "web").assertSuccess();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(serviceRules(iptablesSave("nat"))).isEmpty();
            assertThat(serviceRules(iptablesSave("filter"))).isEmpty();
        });
        assertThat(iptablesSave("nat")).as("the other services keep theirs").contains("default/web-nodeport");
    }

    /** Writes each web pod's name into name.txt beside nginx's page; returns the names. */
    private static Set<String> webPodsWithTheirNames() {
        Set<String> pods = new TreeSet<>(Arrays.asList(kubectl.run("get", "pods", "-l", "app=web", "-o",
                "jsonpath={.items[*].metadata.name}").assertSuccess().stdout().split(" ")));
        assertThat(pods).hasSize(3);
        for (String pod : pods) {
            exec(pod, "sh", "-c", "echo " + pod + " > /usr/share/nginx/html/name.txt").assertSuccess();
        }
        return pods;
    }

    private static Kubectl.Result exec(String pod, String... command) {
        String[] arguments = new String[command.length + 3];
        arguments[0] = "exec";
        arguments[1] = pod;
        arguments[2] = "--";
        System.arraycopy(command, 0, arguments, 3, command.length);
        return kubectl.run(arguments);
    }

    /** The addresses of an nslookup answer (after the server's own lines). */
    private static List<String> addresses(String nslookup) {
        String answer = nslookup.substring(Math.max(0, nslookup.indexOf("Name:")));
        return answer.lines().filter(line -> line.startsWith("Address:"))
                .map(line -> line.substring("Address:".length()).trim()).toList();
    }

    /** Rules of the {@code web} service (its ports named "" or otherwise), not of web-nodeport or web-headless. */
    private static List<String> serviceRules(String saved) {
        Pattern web = Pattern.compile("default/web( |:|\")");
        return saved.lines().filter(line -> web.matcher(line).find()).toList();
    }

    private static String httpGet(URI uri) throws IOException, InterruptedException {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return response.body();
        }
    }

    private static String iptablesSave(String table) {
        try {
            return HostCommand.run("iptables-save", "-t", table);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
