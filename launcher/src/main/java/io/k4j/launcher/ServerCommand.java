package io.k4j.launcher;

import io.k4j.storage.etcd.EtcdStoreTraining;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The flags of {@code k4j server}; behaviour lives in {@link ControlPlane}. */
@Command(name = "server", mixinStandardHelpOptions = true, description = "Run the control plane (apiserver on embedded or etcd storage).")
final class ServerCommand implements Callable<Integer> {
    @Option(names = "--data-dir", description = "Where the cluster keeps its state (default /var/lib/k4j as root, ~/.k4j otherwise).")
    Path dataDir;

    @Option(names = "--datastore-endpoint", description = "etcd://host:port[,host:port…] for a real etcd; the embedded store when absent.")
    String datastoreEndpoint;

    @Option(names = "--etcd-compaction-interval", defaultValue = "5m", converter = GoDurationConverter.class,
            description = "How often the apiserver compacts etcd's history; 0 disables it (default ${DEFAULT-VALUE}; the embedded store compacts by itself).")
    Duration etcdCompactionInterval;

    @Option(names = "--bind-address", defaultValue = "0.0.0.0", description = "Address the apiserver listens on (default ${DEFAULT-VALUE}).")
    String bindAddress;

    @Option(names = "--secure-port", defaultValue = "6443", description = "HTTPS port of the apiserver (default ${DEFAULT-VALUE}).")
    int securePort;

    @Option(names = "--advertise-address", description = "Address the cluster reaches the apiserver on (the kubernetes service's endpoint; default: the host's first non-loopback IPv4).")
    String advertiseAddress;

    @Option(names = "--tls-san", description = "Extra host name or IP for the serving certificate (repeatable).")
    List<String> tlsSubjectAlternativeNames = new ArrayList<>();

    @Option(names = "--token-auth-file", description = "Static bearer tokens, one 'token,user,uid,\"group1,group2\"' per line.")
    Path tokenAuthFile;

    @Option(names = "--service-cluster-ip-range", defaultValue = "10.96.0.0/12", description = "Service CIDR (default ${DEFAULT-VALUE}).")
    String serviceClusterIpRange;

    @Option(names = "--service-node-port-range", defaultValue = "30000-32767", description = "The ports NodePort services get (default ${DEFAULT-VALUE}).")
    String serviceNodePortRange;

    @Option(names = "--write-kubeconfig", description = "Also write the admin kubeconfig here (default ~/.kube/config when it does not exist).")
    Path writeKubeconfig;

    @Option(names = "--cluster-cidr", defaultValue = "10.42.0.0/16", description = "Pod CIDR; each node gets a /24 of it (default ${DEFAULT-VALUE}).")
    String clusterCidr;

    @Option(names = "--controllers", split = ",", defaultValue = "*",
            description = "Controllers to run: '*' for all on by default, 'foo' to add one, '-foo' to leave one out (default ${DEFAULT-VALUE}).")
    List<String> controllers = new ArrayList<>();

    @Option(names = "--node-monitor-grace-period", defaultValue = "50s", converter = GoDurationConverter.class,
            description = "How long a node may go without a heartbeat before it is marked unhealthy (default ${DEFAULT-VALUE}).")
    Duration nodeMonitorGracePeriod;

    @Option(names = "--scheduler-config", description = "A KubeSchedulerConfiguration file (profiles, plugins, weights).")
    Path schedulerConfig;

    @Option(names = "--simulated-nodes", defaultValue = "0", description = "How many simulated (KWOK-like) nodes to run in this process (default ${DEFAULT-VALUE}).")
    int simulatedNodes;

    @Option(names = "--simulated-node-config",
            description = "A YAML file with the simulated nodes' capacity, labels, taints, zones and pod run time (see docs/simulated-nodes.md).")
    Path simulatedNodeConfig;

    @Option(names = "--event-ttl", defaultValue = "1h", converter = GoDurationConverter.class,
            description = "How long events are kept after their last update (default ${DEFAULT-VALUE}).")
    Duration eventTtl;

    @Option(names = "--cluster-dns", description = "The kube-dns service's cluster IP, which pods use as name server "
            + "(default: the 10th address of --service-cluster-ip-range, as kubeadm's 10.96.0.10).")
    String clusterDns;

    @Option(names = "--cluster-domain", defaultValue = "cluster.local", description = "The cluster's DNS domain (default ${DEFAULT-VALUE}).")
    String clusterDomain;

    @Option(names = "--cluster-dns-bind", defaultValue = "127.0.0.1:1053",
            description = "Address:port the cluster DNS server listens on, UDP and TCP (default ${DEFAULT-VALUE}); port 0 picks a free one.")
    String clusterDnsBind;
    @Option(names = "--disable-agent", description = "Run only the control plane, without a real node (containerd, kubelet).")
    boolean disableAgent;

    @Option(names = "--node-name", description = "The real node's name (default: the host name).")
    String nodeName;

    @Option(names = "--disable-kube-proxy",
            description = "Do not run kube-proxy (it runs by default when the server runs as root; it needs iptables).")
    boolean disableKubeProxy;

    @CommandLine.Mixin
    NodeRuntimeOptions nodeRuntime = new NodeRuntimeOptions();

    @CommandLine.Mixin
    KubeletHousekeepingOptions housekeeping = new KubeletHousekeepingOptions();

    @Option(names = {"-v", "--v"}, defaultValue = "0", description = "Log verbosity, as upstream's -v (default ${DEFAULT-VALUE}).")
    int verbosity;

    @Option(names = "--exit-when-ready", hidden = true,
            description = "A training run for the start-up archive: start with simulated nodes only (no real node, no kube-proxy), "
                    + "run a short workload, and stop.")
    boolean exitWhenReady;

    @Override
    public Integer call() throws Exception {
        ServerConfig config;
        try {
            config = toConfig();
        } catch (IllegalArgumentException e) {
            System.err.println("k4j server: " + e.getMessage());
            return 2;
        }
        Logging.configure(config.verbosity());
        SimulatedNodesComponent.nodeConfig(config); // a bad --simulated-node-config stops here, before anything starts
        try (ControlPlane controlPlane = ControlPlane.start(config)) {
            if (exitWhenReady) {
                controlPlane.train();
                // The training run is made on the embedded store; an etcd start then finds its client in the archive too.
                EtcdStoreTraining.run();
            } else {
                controlPlane.awaitTermination();
            }
        }
        return 0;
    }

    ServerConfig toConfig() throws UnknownHostException {
        DataDirectory dataDirectory = dataDir == null ? DataDirectory.defaultLocation() : new DataDirectory(dataDir);
        Path defaultKubeconfig = Path.of(System.getProperty("user.home"), ".kube", "config");
        // A training run exercises the components on a simulated node and never touches the host's containerd,
        // iptables or the cluster DNS's usual port, whatever the other flags say.
        int nodesToSimulate = exitWhenReady ? Math.max(1, simulatedNodes) : simulatedNodes;
        String dnsBind = exitWhenReady ? "127.0.0.1:0" : clusterDnsBind;
        boolean withoutAgent = disableAgent || exitWhenReady;
        boolean withoutKubeProxy = disableKubeProxy || exitWhenReady;
        return new ServerConfig(
                dataDirectory,
                Optional.ofNullable(datastoreEndpoint).filter(endpoint -> !endpoint.isBlank()),
                etcdCompactionInterval,
                InetAddress.getByName(bindAddress),
                securePort,
                advertiseAddress == null ? HostAddresses.primary().map(InetAddress::getHostAddress) : Optional.of(advertiseAddress),
                tlsSubjectAlternativeNames,
                Optional.ofNullable(tokenAuthFile),
                serviceClusterIpRange,
                serviceNodePortRange,
                Optional.of(writeKubeconfig == null ? defaultKubeconfig : writeKubeconfig),
                clusterCidr,
                controllers,
                nodeMonitorGracePeriod,
                Optional.ofNullable(schedulerConfig),
                nodesToSimulate,
                Optional.ofNullable(simulatedNodeConfig),
                verbosity,
                eventTtl,
                Optional.ofNullable(clusterDns).filter(address -> !address.isBlank()),
                clusterDomain,
                ClusterDnsComponent.parseBindAddress(dnsBind),
                withoutAgent,
                nodeRuntime.containerRuntimeEndpoint(),
                Optional.ofNullable(nodeName).filter(name -> !name.isBlank()),
                nodeRuntime.kubeletPort(),
                nodeRuntime.cniBridge(),
                withoutKubeProxy,
                nodeRuntime.kubeProxyNetworkNamespace(),
                nodeRuntime.iptablesMinSyncPeriod(),
                housekeeping.podManifestPath(),
                housekeeping.evictionHard(),
                housekeeping.imageGcPolicy());
    }
}
