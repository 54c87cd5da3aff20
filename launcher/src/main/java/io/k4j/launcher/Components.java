package io.k4j.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * The components {@code k4j server} runs beside its apiserver, in start order: what reconciles objects (controller
 * manager) before what places pods (scheduler) before what runs them (nodes), as k3s orders them.
 */
final class Components {
    private Components() {}

    static List<Component> create(ServerConfig config, ComponentClients clients) {
        List<Component> components = new ArrayList<>();
        components.add(SimulatedNodesComponent.create(config, clients));
        return List.copyOf(components);
    }
}
