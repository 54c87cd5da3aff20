package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.simulated.NodeSimulator;
import io.k4j.kubelet.simulated.SimulatedNodeConfig;
import java.time.InstantSource;

/**
 * The simulated (KWOK-like) nodes of {@code k4j server}: registers {@code --simulated-nodes} nodes and runs every Node
 * annotated {@code kwok.x-k8s.io/node: fake}, with the node simulator's own identity. Always on, so that nodes
 * created later through the API are run even when the server started with none. Thread-safe.
 */
final class SimulatedNodesComponent implements Component {
    private final NodeSimulator simulator;

    private SimulatedNodesComponent(NodeSimulator simulator) {
        this.simulator = requireNonNull(simulator, "simulator is null");
    }

    /** The component with the simulator's own client. */
    static Component create(ServerConfig config, ComponentClients clients) {
        NodeSimulator simulator = new NodeSimulator(clients.nodeSimulator(), nodeConfig(config), config.clusterCidr(), config.simulatedNodes(),
                InstantSource.system());
        return new SimulatedNodesComponent(simulator);
    }

    /**
     * The simulated nodes' configuration: {@code --simulated-node-config} over the defaults.
     *
     * @throws IllegalArgumentException naming the file and the field when the file is invalid
     */
    static SimulatedNodeConfig nodeConfig(ServerConfig config) {
        return config.simulatedNodeConfig()
                .map(file -> SimulatedNodeConfig.load(file, Versions.KUBERNETES_VERSION))
                .orElseGet(() -> SimulatedNodeConfig.defaults(Versions.KUBERNETES_VERSION));
    }

    @Override
    public String name() {
        return "node-simulator";
    }

    @Override
    public void start() throws Exception {
        simulator.start();
    }

    @Override
    public void close() {
        simulator.close();
    }
}
