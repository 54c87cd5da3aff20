package io.k4j.controllers;

import io.k4j.controllerkit.manager.ControllerDescriptor;
import io.k4j.controllers.cronjob.CronJobController;
import io.k4j.controllers.daemonset.DaemonSetController;
import io.k4j.controllers.deployment.DeploymentController;
import io.k4j.controllers.disruption.DisruptionController;
import io.k4j.controllers.endpoint.EndpointsController;
import io.k4j.controllers.endpointslice.EndpointSliceController;
import io.k4j.controllers.garbagecollector.GarbageCollectorController;
import io.k4j.controllers.job.JobController;
import io.k4j.controllers.namespace.NamespaceController;
import io.k4j.controllers.nodeipam.NodeIpamController;
import io.k4j.controllers.nodelifecycle.NodeLifecycleController;
import io.k4j.controllers.podgc.PodGarbageCollector;
import io.k4j.controllers.replicaset.ReplicaSetController;
import io.k4j.controllers.replicaset.ReplicaSets;
import io.k4j.controllers.replication.ReplicationControllers;
import io.k4j.controllers.resourcequota.ResourceQuotaController;
import io.k4j.controllers.rootcacertpublisher.RootCaCertPublisher;
import io.k4j.controllers.serviceaccount.ServiceAccountsController;
import io.k4j.controllers.statefulset.StatefulSetController;
import io.k4j.controllers.tainteviction.TaintEvictionController;
import io.k4j.controllers.ttlafterfinished.TtlAfterFinishedController;
import java.util.List;

/**
 * Every controller k4j's controller manager knows, under upstream's {@code --controllers} names, in start order.
 * Each lives in its own package.
 */
public final class KubeControllers {
    private KubeControllers() {}

    public static List<ControllerDescriptor> descriptors() {
        return List.of(
                new ControllerDescriptor(NamespaceController.NAME, true, 10, NamespaceController::new),
                new ControllerDescriptor(ServiceAccountsController.NAME, true, 1, ServiceAccountsController::new),
                new ControllerDescriptor(RootCaCertPublisher.NAME, true, 1, RootCaCertPublisher::new),
                new ControllerDescriptor(GarbageCollectorController.NAME, true, 20, GarbageCollectorController::new),
                new ControllerDescriptor(PodGarbageCollector.NAME, true, 1, PodGarbageCollector::new),
                new ControllerDescriptor(ResourceQuotaController.NAME, true, 5, ResourceQuotaController::new),
                new ControllerDescriptor(NodeIpamController.NAME, true, 30, NodeIpamController::new),
                new ControllerDescriptor(NodeLifecycleController.NAME, true, 1, NodeLifecycleController::new),
                new ControllerDescriptor(TaintEvictionController.NAME, true, 1, TaintEvictionController::new),
                new ControllerDescriptor(DisruptionController.NAME, true, 1, DisruptionController::new),
                new ControllerDescriptor(EndpointsController.NAME, true, EndpointsController.DEFAULT_WORKERS, EndpointsController::new),
                new ControllerDescriptor(EndpointSliceController.NAME, true, EndpointSliceController.DEFAULT_WORKERS, EndpointSliceController::new),
                new ControllerDescriptor(DaemonSetController.NAME, true, DaemonSetController.DEFAULT_WORKERS, DaemonSetController::new),
                new ControllerDescriptor(StatefulSetController.NAME, true, StatefulSetController.DEFAULT_WORKERS, StatefulSetController::new),
                new ControllerDescriptor(JobController.NAME, true, JobController.DEFAULT_WORKERS, JobController::new),
                new ControllerDescriptor(CronJobController.NAME, true, CronJobController.DEFAULT_WORKERS, CronJobController::new),
                new ControllerDescriptor(TtlAfterFinishedController.NAME, true, TtlAfterFinishedController.DEFAULT_WORKERS, TtlAfterFinishedController::new),
                new ControllerDescriptor(DeploymentController.NAME, true, 5, DeploymentController::create),
                new ControllerDescriptor("replicaset", true, 5, context -> ReplicaSetController.create(context, ReplicaSets.INSTANCE)),
                new ControllerDescriptor("replicationcontroller", true, 5, context -> ReplicaSetController.create(context, ReplicationControllers.INSTANCE))
        );
    }
}
