package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.k4j.proxy.IptablesExecutor;
import io.k4j.proxy.KubeProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-proxy inside {@code k4j server} and {@code k4j agent}: programs this host's iptables for Services, as {@code system:kube-proxy}. Runs
 * only as root (iptables needs it) and unless {@code --disable-kube-proxy}; as root without iptables the server does
 * not start, naming the package to install. Thread-safe.
 */
final class KubeProxyComponent implements Component {
    private static final Logger LOG = LoggerFactory.getLogger("kube-proxy");
    private static final Duration CACHE_SYNC_TIMEOUT = Duration.ofSeconds(60);

    private final NodeIdentity identity;
    private final KubeProxy.Config config;
    private KubeProxy proxy;

    private KubeProxyComponent(NodeIdentity identity, KubeProxy.Config config) {
        this.identity = requireNonNull(identity, "identity is null");
        this.config = requireNonNull(config, "config is null");
    }

    /**
     * Whether kube-proxy programs this host's own iptables (enabled, root, no test network namespace): only then do
     * service IPs such as the kube-dns service's work for the host's pods.
     */
    static boolean programsHostTables(boolean disableKubeProxy, Optional<String> networkNamespace) {
        return !disableKubeProxy && isRoot() && networkNamespace.isEmpty();
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The component, or empty when it is disabled or the server is not root. */
    static Optional<Component> create(NodeConfig config, NodeIdentity identity) {
        if (config.disableKubeProxy()) {
            return Optional.empty();
        }
        if (!isRoot()) {
            LOG.info("not running kube-proxy: it needs root to write iptables rules");
            return Optional.empty();
        }
        try {
            IptablesExecutor.requireIptables();
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + ", or start k4j with --disable-kube-proxy", e);
        }
        KubeProxy.Config defaults = KubeProxy.Config.defaults(Optional.of(config.clusterCidr()));
        List<String> commandPrefix = config.kubeProxyNetworkNamespace()
                .map(namespace -> List.of("ip", "netns", "exec", namespace))
                .orElse(List.of());
        return Optional.of(new KubeProxyComponent(identity,
                new KubeProxy.Config(defaults.clusterCidr(), config.iptablesMinSyncPeriod(), defaults.syncPeriod(), commandPrefix,
                        Optional.of(config.nodeName()))));
    }

    @Override
    public String name() {
        return "kube-proxy";
    }

    @Override
    public void start() {
        proxy = new KubeProxy(identity.kubeProxyClient(), config);
        proxy.start(CACHE_SYNC_TIMEOUT);
    }

    @Override
    public void close() {
        if (proxy != null) {
            proxy.close();
        }
    }
}
