package io.k4j.controllers.tainteviction;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.informers.PodIndexes;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evicts pods from nodes with NoExecute taints they do not tolerate, at once or after their shortest
 * {@code tolerationSeconds} (upstream's taint eviction controller, once part of the node lifecycle controller). A
 * pending eviction is cancelled when the taint goes or the pod comes to tolerate it. Thread-safe.
 */
public final class TaintEvictionController implements Controller {
    public static final String NAME = "taint-eviction-controller";
    public static final String SERVICE_ACCOUNT = "node-controller";
    private static final Logger LOG = LoggerFactory.getLogger(NAME);
    private static final String NO_EXECUTE = "NoExecute";

    private final Lister<Node> nodes;
    private final Lister<Pod> pods;
    private final KubernetesClient client;
    private final EventRecorder events;
    private final InstantSource clock;
    private final Map<String, Scheduled> scheduled = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(NAME + "-timers").factory());
    private volatile boolean started;

    public TaintEvictionController(ControllerContext context) {
        this.nodes = context.informers().lister(Node.class);
        this.pods = PodIndexes.byNodeName(context.informers());
        this.client = context.clientFor(SERVICE_ACCOUNT);
        this.events = context.eventRecorder("taint-eviction-controller");
        this.clock = requireNonNull(context.clock(), "clock is null");
        context.informers().informer(Node.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                nodeChanged(node.getMetadata().getName());
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                if (!noExecuteTaints(oldNode).equals(noExecuteTaints(newNode))) {
                    nodeChanged(newNode.getMetadata().getName());
                }
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                nodeChanged(node.getMetadata().getName());
            }
        });
        context.informers().informer(Pod.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                podChanged(pod);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                podChanged(newPod);
            }

            @Override
            public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                cancel(ObjectKeys.key(pod), null);
            }
        });
    }

    @Override
    public void start(int workers) {
        started = true;
        for (Node node : nodes.list()) {
            nodeChanged(node.getMetadata().getName());
        }
    }

    private void nodeChanged(String nodeName) {
        if (!started) {
            return;
        }
        for (Pod pod : pods.byIndex(PodIndexes.NODE_NAME, nodeName)) {
            podChanged(pod);
        }
    }

    private void podChanged(Pod pod) {
        if (!started) {
            return;
        }
        String key = ObjectKeys.key(pod);
        String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (nodeName == null || nodeName.isEmpty() || pod.getMetadata().getDeletionTimestamp() != null) {
            cancel(key, null);
            return;
        }
        List<Taint> taints = nodes.get(nodeName).map(TaintEvictionController::noExecuteTaints).orElse(List.of());
        List<Toleration> tolerations = pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
        Optional<Duration> delay = Tolerations.evictionDelay(taints, tolerations);
        if (delay.isEmpty()) {
            cancel(key, pod);
            return;
        }
        schedule(key, delay.get());
    }

    private synchronized void schedule(String key, Duration delay) {
        // Once planned, an eviction keeps its time until it is cancelled (the taint goes or becomes tolerated), as
        // upstream's: later changes to tolerationSeconds do not move it.
        if (scheduled.containsKey(key)) {
            return;
        }
        Instant now = clock.instant();
        ScheduledFuture<?> future = timers.schedule(() -> evict(key), delay.toMillis(), TimeUnit.MILLISECONDS);
        scheduled.put(key, new Scheduled(now, future));
    }

    private synchronized void cancel(String key, Pod pod) {
        Scheduled existing = scheduled.remove(key);
        if (existing != null) {
            existing.future().cancel(false);
            if (pod != null) {
                events.event(pod, EventRecorder.NORMAL, "TaintManagerEviction", "Cancelling deletion of Pod " + key);
            }
        }
    }

    /** Marks the pod with a DisruptionTarget condition (why it goes) and deletes it, as upstream does. */
    private void evict(String key) {
        synchronized (this) {
            scheduled.remove(key);
        }
        String namespace = ObjectKeys.namespace(key);
        String name = ObjectKeys.name(key);
        try {
            Pod pod = client.pods().inNamespace(namespace).withName(name).get();
            if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
                return;
            }
            events.event(pod, EventRecorder.NORMAL, "TaintManagerEviction", "Marking for deletion Pod " + key);
            Pod marked = new PodBuilder(pod).editOrNewStatus().addToConditions(new PodConditionBuilder()
                    .withType("DisruptionTarget").withStatus("True").withReason("DeletionByTaintManager")
                    .withMessage("Taint manager: deleting due to NoExecute taint")
                    .withLastTransitionTime(DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS))).build())
                    .endStatus().build();
            try {
                client.pods().inNamespace(namespace).resource(marked).updateStatus();
            } catch (KubernetesClientException e) {
                LOG.debug("could not add DisruptionTarget to {}: {}", key, e.getMessage());
            }
            client.pods().inNamespace(namespace).withName(name).delete();
            LOG.info("evicted pod {} from node {} (NoExecute taint)", key, pod.getSpec().getNodeName());
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                LOG.warn("could not evict pod {}: {}; retrying", key, e.getMessage());
                timers.schedule(() -> evict(key), 5, TimeUnit.SECONDS);
            }
        }
    }

    static List<Taint> noExecuteTaints(Node node) {
        if (node.getSpec() == null || node.getSpec().getTaints() == null) {
            return List.of();
        }
        List<Taint> result = new ArrayList<>();
        for (Taint taint : node.getSpec().getTaints()) {
            if (NO_EXECUTE.equals(taint.getEffect())) {
                result.add(taint);
            }
        }
        return result;
    }

    @Override
    public void close() {
        started = false;
        timers.shutdownNow();
    }

    private record Scheduled(Instant createdAt, ScheduledFuture<?> future) {}
}
