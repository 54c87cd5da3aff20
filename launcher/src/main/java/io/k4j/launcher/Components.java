package io.k4j.launcher;

import io.k4j.controllers.nodelifecycle.NodeLifecycleController;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The components {@code k4j server} runs beside its apiserver, in start order: what reconciles objects (controller
 * manager) before what places pods (scheduler) before what runs them (nodes), as k3s orders them.
 */
final class Components {
    private Components() {}

    static List<Component> create(ServerConfig config, ComponentClients clients, String hostName) throws java.net.UnknownHostException {
        List<Component> components = new ArrayList<>();
        components.add(new ControllerManagerComponent(clients, config.controllers(),
                Map.of("cluster-cidr", config.clusterCidr(), "service-cluster-ip-range", config.serviceClusterIpRange(),
                        "root-ca-pem", clients.caCertificatePem(),
                        NodeLifecycleController.MONITOR_GRACE_SETTING, Long.toString(config.nodeMonitorGracePeriod().toSeconds())), hostName));
        components.add(new SchedulerComponent(clients, config.schedulerConfig(), hostName));
        components.add(SimulatedNodesComponent.create(config, clients));
        components.add(new ClusterDnsComponent(config, clients));
        NodeConfig node = NodeConfig.forServer(config, hostName);
        NodeIdentity identity = NodeIdentity.ofServer(clients, node);
        if (!config.disableAgent()) {
            components.add(new KubeletComponent(node, identity));
        }
        KubeProxyComponent.create(node, identity).ifPresent(components::add);
        return List.copyOf(components);
    }
}
