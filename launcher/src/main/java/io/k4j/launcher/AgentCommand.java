package io.k4j.launcher;

import io.k4j.apiserver.nodejoin.NodeCredentials;
import io.k4j.apiserver.nodejoin.NodeCredentialsRequest;
import io.k4j.apiserver.nodejoin.NodeJoinToken;
import io.k4j.apiserver.pki.Kubeconfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code k4j agent}: an extra real node that joins a running {@code k4j server}, as k3s's agent. It gets its
 * credentials from the server with the join token (see {@link NodeJoinClient}), writes them and a kubeconfig into its
 * data directory, then runs containerd, the kubelet and kube-proxy against the remote apiserver with the same
 * components as the server's own node.
 */
@Command(name = "agent", mixinStandardHelpOptions = true, description = "Run a real node (containerd, kubelet, kube-proxy) that joins a k4j server.")
final class AgentCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger("agent");
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);

    @Option(names = "--server", required = true, description = "The k4j server's URL, e.g. https://10.0.0.1:6443.")
    String server;

    @Option(names = "--token", description = "The node join token: the content of the server's <data-dir>/token.")
    String token;

    @Option(names = "--token-file", description = "A file holding the node join token.")
    Path tokenFile;

    @Option(names = "--data-dir", description = "Where the node keeps its state (default /var/lib/k4j-agent as root, ~/.k4j-agent otherwise).")
    Path dataDir;

    @Option(names = "--node-name", description = "The node's name (default: the host name).")
    String nodeName;

    @Option(names = "--node-ip", description = "The node's address that the cluster reaches it on (default: the host's first non-loopback IPv4).")
    String nodeIp;

    @Option(names = "--disable-kube-proxy", description = "Do not run kube-proxy (it runs by default; it needs iptables).")
    boolean disableKubeProxy;

    @Option(names = "--cluster-dns", defaultValue = "10.96.0.10",
            description = "The kube-dns service's cluster IP that ClusterFirst pods use as name server, when kube-proxy runs on this host (default ${DEFAULT-VALUE}).")
    String clusterDns;

    @Option(names = "--cluster-domain", defaultValue = "cluster.local", description = "The cluster's DNS domain (default ${DEFAULT-VALUE}).")
    String clusterDomain;

    @picocli.CommandLine.Mixin
    NodeRuntimeOptions nodeRuntime = new NodeRuntimeOptions();

    @picocli.CommandLine.Mixin
    KubeletHousekeepingOptions housekeeping = new KubeletHousekeepingOptions();

    @Option(names = {"-v", "--v"}, defaultValue = "0", description = "Log verbosity, as upstream's -v (default ${DEFAULT-VALUE}).")
    int verbosity;

    @Override
    public Integer call() throws Exception {
        Logging.configure(verbosity);
        if (!"root".equals(System.getProperty("user.name"))) {
            return fail("k4j agent must run as root: it runs containerd, mounts pod volumes and sets up pod networking (try: sudo k4j agent …)");
        }
        NodeJoinToken joinToken;
        try {
            joinToken = NodeJoinToken.parse(tokenText());
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage());
        }
        URI serverUri;
        try {
            serverUri = new URI(server.strip());
        } catch (URISyntaxException e) {
            return fail("--server is not a URL: " + e.getMessage());
        }
        String hostName = InetAddress.getLocalHost().getHostName();
        String name = Optional.ofNullable(nodeName).filter(value -> !value.isBlank()).orElse(hostName).toLowerCase(Locale.ROOT);
        List<InetAddress> addresses;
        try {
            addresses = nodeIp == null || nodeIp.isBlank() ? NodeConfig.defaultAddresses() : List.of(InetAddress.getByName(nodeIp));
        } catch (UnknownHostException e) {
            return fail("--node-ip is not an address: " + nodeIp);
        }
        Path directory = (dataDir != null ? dataDir : defaultDataDirectory()).toAbsolutePath().normalize();

        LOG.info("joining {} as node {} (addresses {})", serverUri, name, addresses.stream().map(InetAddress::getHostAddress).toList());
        NodeCredentials credentials;
        try {
            credentials = NodeJoinClient.join(serverUri, joinToken, new NodeCredentialsRequest(name, NodeConfig.servingNames(hostName),
                    NodeConfig.servingAddresses(addresses).stream().map(InetAddress::getHostAddress).toList()), JOIN_TIMEOUT);
        } catch (NodeJoinClient.JoinException e) {
            return fail(e.getMessage());
        }
        LOG.info("got the credentials of system:node:{} from {}", name, serverUri);
        String serverUrl = serverUri.toString().replaceAll("/+$", "");
        try {
            writeCredentials(directory, serverUrl, name, credentials);
        } catch (IOException e) {
            return fail("cannot write the node's credentials into " + directory + ": " + e.getMessage());
        }
        LOG.info("wrote the node's kubeconfig to {}", directory.resolve("kubelet.kubeconfig"));

        NodeConfig node = new NodeConfig(directory, name, hostName, addresses,
                nodeRuntime.containerRuntimeEndpoint(), nodeRuntime.kubeletPort(), nodeRuntime.cniBridge(), disableKubeProxy,
                nodeRuntime.kubeProxyNetworkNamespace(), nodeRuntime.iptablesMinSyncPeriod(), credentials.clusterCidr(), housekeeping.podManifestPath(),
                housekeeping.evictionHard(), housekeeping.imageGcPolicy(),
                KubeProxyComponent.programsHostTables(disableKubeProxy, nodeRuntime.kubeProxyNetworkNamespace()) ? List.of(clusterDns) : List.of(),
                clusterDomain);
        return run(node, new JoinedNodeIdentity(serverUrl, credentials));
    }

    /**
     * The token from {@code --token} or {@code --token-file}.
     *
     * @throws IllegalArgumentException with what to do when there is none, both, or the token is malformed
     */
    private String tokenText() {
        if (token != null && tokenFile != null) {
            throw new IllegalArgumentException("give --token or --token-file, not both");
        }
        if (token != null) {
            return checkedToken(token);
        }
        if (tokenFile != null) {
            try {
                return checkedToken(Files.readString(tokenFile));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read --token-file " + tokenFile + ": " + e.getMessage(), e);
            }
        }
        throw new IllegalArgumentException("the agent needs the server's join token: --token=<content of the server's <data-dir>/token> "
                + "or --token-file=<file>");
    }

    private static String checkedToken(String text) {
        try {
            NodeJoinToken.parse(text);
            return text;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the join token is malformed (" + e.getMessage() + "): pass the content of the server's "
                    + "<data-dir>/token", e);
        }
    }

    private static Path defaultDataDirectory() {
        boolean root = "root".equals(System.getProperty("user.name"));
        return root ? Path.of("/var/lib/k4j-agent") : Path.of(System.getProperty("user.home"), ".k4j-agent");
    }

    /** Runs the node until the process is told to stop; a component that cannot start stops the agent with an error. */
    private static int run(NodeConfig node, JoinedNodeIdentity identity) {
        List<Component> components = new ArrayList<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runnable stop = () -> {
            for (Component component : components.reversed()) {
                component.close();
            }
            identity.close();
            stopped.countDown();
        };
        try {
            components.add(new KubeletComponent(node, identity));
            KubeProxyComponent.create(node, identity).ifPresent(components::add);
            for (Component component : components) {
                component.start();
                LOG.info("started {}", component.name());
            }
        } catch (Exception e) {
            LOG.debug("starting the node failed", e);
            stop.run();
            return fail("the node could not start: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        }
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
            LOG.info("shutting down");
            stop.run();
        }));
        LOG.info("node {} runs; the server schedules pods to it once it is Ready", node.nodeName());
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** The CA, the node's certificates and keys in {@code pki/}, and kubeconfigs for the kubelet and kube-proxy. */
    private static void writeCredentials(Path directory, String serverUrl, String nodeName, NodeCredentials credentials) throws IOException {
        Path pki = directory.resolve("pki");
        for (Path created : List.of(directory, pki)) {
            Files.createDirectories(created);
            Files.setPosixFilePermissions(created, PosixFilePermissions.fromString("rwx------"));
        }
        writeOwnerOnly(pki.resolve("ca.crt"), credentials.caCertificate());
        writeOwnerOnly(pki.resolve("kubelet.crt"), credentials.clientCertificate());
        writeOwnerOnly(pki.resolve("kubelet.key"), credentials.clientKey());
        writeOwnerOnly(pki.resolve("kubelet-serving.crt"), credentials.servingCertificate());
        writeOwnerOnly(pki.resolve("kubelet-serving.key"), credentials.servingKey());
        String user = "system:node:" + nodeName;
        Kubeconfig.write(directory.resolve("kubelet.kubeconfig"), "k4j", serverUrl, credentials.caCertificate(), credentials.clientCertificate(),
                credentials.clientKey(), user, user + "@k4j");
        Kubeconfig.write(directory.resolve("kube-proxy.kubeconfig"), "k4j", serverUrl, credentials.caCertificate(),
                credentials.kubeProxyCertificate(), credentials.kubeProxyKey(), "system:kube-proxy", "system:kube-proxy@k4j");
    }

    private static void writeOwnerOnly(Path file, String content) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, content, StandardCharsets.US_ASCII);
    }

    private static int fail(String message) {
        System.err.println("k4j agent: " + message);
        return 1;
    }
}
