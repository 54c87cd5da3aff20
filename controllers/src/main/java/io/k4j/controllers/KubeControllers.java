package io.k4j.controllers;

import io.k4j.controllerkit.manager.ControllerDescriptor;
import io.k4j.controllers.disruption.DisruptionController;
import io.k4j.controllers.nodeipam.NodeIpamController;
import io.k4j.controllers.nodelifecycle.NodeLifecycleController;
import io.k4j.controllers.tainteviction.TaintEvictionController;
import java.util.List;

/**
 * Every controller k4j's controller manager knows, under upstream's {@code --controllers} names, in start order.
 * Each lives in its own package.
 */
public final class KubeControllers {
    private KubeControllers() {}

    public static List<ControllerDescriptor> descriptors() {
        return List.of(
                new ControllerDescriptor(NodeIpamController.NAME, true, 1, NodeIpamController::new),
                new ControllerDescriptor(NodeLifecycleController.NAME, true, 1, NodeLifecycleController::new),
                new ControllerDescriptor(TaintEvictionController.NAME, true, 1, TaintEvictionController::new),
                new ControllerDescriptor(DisruptionController.NAME, true, 1, DisruptionController::new)
        );
    }
}
