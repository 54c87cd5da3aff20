package io.k4j.controllers.nodeipam;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives every node a pod CIDR cut from the cluster CIDR (upstream's node-ipam controller with the range allocator),
 * so pods on different nodes never share an address. Thread-safe.
 */
public final class NodeIpamController implements Controller {
    public static final String NAME = "node-ipam";
    public static final String SERVICE_ACCOUNT = "node-controller";
    /** Settings keys in {@link ControllerContext#settings()}. */
    public static final String CLUSTER_CIDR = "cluster-cidr";
    public static final String NODE_CIDR_MASK_SIZE = "node-cidr-mask-size";
    private static final Logger LOG = LoggerFactory.getLogger(NAME);
    private static final int DEFAULT_MASK_SIZE_IPV4 = 24;

    private final CidrSet cidrs;
    private final Lister<Node> nodes;
    private final NodeCidrWriter writer;
    private final EventRecorder events;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    /** Writes a node's pod CIDR; the API in production, a recording fake in tests. */
    @FunctionalInterface
    interface NodeCidrWriter {
        void setPodCidr(Node node, String cidr);
    }

    public NodeIpamController(ControllerContext context) {
        this(CidrSet.parse(context.settings().getOrDefault(CLUSTER_CIDR, "10.42.0.0/16"),
                        Integer.parseInt(context.settings().getOrDefault(NODE_CIDR_MASK_SIZE, String.valueOf(DEFAULT_MASK_SIZE_IPV4)))),
                context.informers().lister(Node.class), apiWriter(context.clientFor(SERVICE_ACCOUNT)), context.eventRecorder("cidrAllocator"));
        context.informers().informer(Node.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                queue.add(node.getMetadata().getName());
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                if (podCidr(newNode).isEmpty()) {
                    queue.add(newNode.getMetadata().getName());
                }
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                podCidr(node).ifPresent(cidr -> {
                    cidrs.release(cidr);
                    LOG.info("released pod CIDR {} of deleted node {}", cidr, node.getMetadata().getName());
                });
            }
        });
    }

    NodeIpamController(CidrSet cidrs, Lister<Node> nodes, NodeCidrWriter writer, EventRecorder events) {
        this.cidrs = requireNonNull(cidrs, "cidrs is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.writer = requireNonNull(writer, "writer is null");
        this.events = requireNonNull(events, "events is null");
    }

    private static NodeCidrWriter apiWriter(KubernetesClient client) {
        // resource(node), not withName(name): fabric8 would first read the node from the server (one GET per node,
        // which doubled the requests of assigning CIDRs to thousands of nodes at start-up).
        return (node, cidr) -> client.nodes().resource(node).patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                "{\"metadata\":{\"uid\":\"" + node.getMetadata().getUid() + "\"},\"spec\":{\"podCIDR\":\"" + cidr + "\",\"podCIDRs\":[\"" + cidr + "\"]}}");
    }

    @Override
    public void start(int workerCount) {
        occupyExisting();
        workers.start(workerCount);
    }

    /** Marks the CIDRs nodes already have as taken, before anything is handed out (upstream does this at start-up too). */
    void occupyExisting() {
        for (Node node : nodes.list()) {
            podCidr(node).ifPresent(cidr -> {
                if (!cidrs.occupy(cidr)) {
                    LOG.warn("node {} has pod CIDR {} outside the cluster CIDR {}", node.getMetadata().getName(), cidr, cidrs);
                }
            });
        }
    }

    void sync(String name) {
        Optional<Node> found = nodes.get(name);
        if (found.isEmpty()) {
            return;
        }
        Node node = found.get();
        Optional<String> existing = podCidr(node);
        if (existing.isPresent()) {
            cidrs.occupy(existing.get());
            return;
        }
        Optional<String> allocated = cidrs.allocateNext();
        if (allocated.isEmpty()) {
            events.event(node, EventRecorder.NORMAL, "CIDRNotAvailable", "Node " + name + " status is now: CIDRNotAvailable");
            throw new IllegalStateException("no pod CIDR left in " + cidrs + " for node " + name);
        }
        try {
            writer.setPodCidr(node, allocated.get());
        } catch (RuntimeException e) {
            cidrs.release(allocated.get());
            events.event(node, EventRecorder.WARNING, "CIDRAssignmentFailed", "Node " + name + " status is now: CIDRAssignmentFailed");
            throw e;
        }
        LOG.info("assigned pod CIDR {} to node {}", allocated.get(), name);
    }

    static Optional<String> podCidr(Node node) {
        if (node.getSpec() == null || node.getSpec().getPodCIDR() == null || node.getSpec().getPodCIDR().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(node.getSpec().getPodCIDR());
    }

    @Override
    public void close() {
        workers.close();
    }
}
