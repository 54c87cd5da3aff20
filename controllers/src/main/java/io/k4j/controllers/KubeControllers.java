package io.k4j.controllers;

import io.k4j.controllerkit.manager.ControllerDescriptor;
import io.k4j.controllers.deployment.DeploymentController;
import io.k4j.controllers.replicaset.ReplicaSetController;
import io.k4j.controllers.replicaset.ReplicaSets;
import io.k4j.controllers.replication.ReplicationControllers;
import java.util.List;

/**
 * Every controller k4j's controller manager knows, under upstream's {@code --controllers} names, in start order.
 * Each lives in its own package.
 */
public final class KubeControllers {
    private KubeControllers() {}

    public static List<ControllerDescriptor> descriptors() {
        return List.of(
                new ControllerDescriptor("deployment", true, 5, DeploymentController::create),
                new ControllerDescriptor("replicaset", true, 5, context -> ReplicaSetController.create(context, ReplicaSets.INSTANCE)),
                new ControllerDescriptor("replicationcontroller", true, 5, context -> ReplicaSetController.create(context, ReplicationControllers.INSTANCE))
        );
    }
}
