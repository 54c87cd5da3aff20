package io.k4j.controllers.podgc;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's {@code pod-garbage-collector}, every 20 seconds as upstream: deletes the oldest terminated
 * pods above the threshold ({@code --terminated-pod-gc-threshold}, 12500), pods bound to nodes that no longer exist
 * (once the node has been missing for the quarantine time and the API confirms it), and unscheduled pods that are
 * terminating. Pods it deletes are first marked Failed with a {@code DisruptionTarget} condition, as upstream. Writes
 * as the {@code pod-garbage-collector} service account. Thread-safe.
 */
public final class PodGarbageCollector implements Controller {
    private static final Logger LOG = LoggerFactory.getLogger("pod-garbage-collector");
    public static final String NAME = "pod-garbage-collector";
    public static final String SERVICE_ACCOUNT = "pod-garbage-collector";
    /** The setting that overrides the terminated-pod threshold; 0 or less turns that part off. */
    public static final String THRESHOLD_SETTING = "terminated-pod-gc-threshold";
    static final int DEFAULT_THRESHOLD = 12_500;
    static final Duration CHECK_PERIOD = Duration.ofSeconds(20);
    static final Duration QUARANTINE = Duration.ofSeconds(40);

    /** The API calls of the collector. */
    interface PodGcClient {
        /** Whether the node exists, asked of the API rather than a cache. */
        boolean nodeExists(String name);

        /** Marks a running pod Failed with the DisruptionTarget condition, then deletes it with no grace period. */
        void failAndDelete(Pod pod, String message);
    }

    private final Lister<Pod> pods;
    private final Lister<Node> nodes;
    private final PodGcClient client;
    private final InstantSource clock;
    private final int threshold;
    private final Map<String, Instant> missingNodesSince = new HashMap<>();
    private ScheduledExecutorService timer;

    public PodGarbageCollector(ControllerContext context) {
        this(context.informers().lister(Pod.class), context.informers().lister(Node.class), apiClient(context.clientFor(SERVICE_ACCOUNT), context.clock()),
                context.clock(), Integer.parseInt(context.settings().getOrDefault(THRESHOLD_SETTING, Integer.toString(DEFAULT_THRESHOLD))));
    }

    PodGarbageCollector(Lister<Pod> pods, Lister<Node> nodes, PodGcClient client, InstantSource clock, int threshold) {
        this.pods = requireNonNull(pods, "pods is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.client = requireNonNull(client, "client is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.threshold = threshold;
    }

    /** One collection pass: upstream's {@code gc}. */
    synchronized void collect() {
        List<Pod> all = pods.list();
        if (threshold > 0) {
            collectTerminated(all);
        }
        collectOrphaned(all);
        collectUnscheduledTerminating(all);
    }

    private void collectTerminated(List<Pod> all) {
        List<Pod> terminated = all.stream().filter(PodGarbageCollector::isTerminated).toList();
        int excess = terminated.size() - threshold;
        if (excess <= 0) {
            return;
        }
        LOG.info("garbage collecting {} terminated pods", excess);
        terminated.stream()
                .sorted(Comparator.comparing((Pod pod) -> Instant.parse(pod.getMetadata().getCreationTimestamp())).thenComparing(pod -> pod.getMetadata().getName()))
                .limit(excess)
                .forEach(pod -> delete(pod, "PodGC: terminated pods above the threshold"));
    }

    private void collectOrphaned(List<Pod> all) {
        Set<String> known = new HashSet<>();
        nodes.list().forEach(node -> known.add(node.getMetadata().getName()));
        Instant now = clock.instant();
        Set<String> missing = new HashSet<>();
        for (Pod pod : all) {
            String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (nodeName != null && !nodeName.isEmpty() && !known.contains(nodeName)) {
                missing.add(nodeName);
            }
        }
        missingNodesSince.keySet().retainAll(missing);
        Set<String> deleted = new HashSet<>();
        for (String nodeName : missing) {
            Instant since = missingNodesSince.computeIfAbsent(nodeName, ignored -> now);
            // A node the cache has not seen yet may just be new: wait the quarantine, then ask the API.
            if (Duration.between(since, now).compareTo(QUARANTINE) < 0 || client.nodeExists(nodeName)) {
                continue;
            }
            deleted.add(nodeName);
        }
        for (Pod pod : all) {
            if (pod.getSpec() != null && deleted.contains(pod.getSpec().getNodeName())) {
                delete(pod, "PodGC: node no longer exists");
            }
        }
        missingNodesSince.keySet().removeAll(deleted);
    }

    private void collectUnscheduledTerminating(List<Pod> all) {
        for (Pod pod : all) {
            boolean unscheduled = pod.getSpec() == null || pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty();
            if (unscheduled && pod.getMetadata().getDeletionTimestamp() != null) {
                delete(pod, "PodGC: unscheduled pod is terminating");
            }
        }
    }

    private void delete(Pod pod, String message) {
        try {
            client.failAndDelete(pod, message);
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                LOG.warn("could not delete pod {}/{}: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(), e.getMessage());
            }
        }
    }

    static boolean isTerminated(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private static PodGcClient apiClient(KubernetesClient client, InstantSource clock) {
        return new PodGcClient() {
            @Override
            public boolean nodeExists(String name) {
                return client.nodes().withName(name).get() != null;
            }

            @Override
            public void failAndDelete(Pod pod, String message) {
                String namespace = pod.getMetadata().getNamespace();
                String name = pod.getMetadata().getName();
                if (!isTerminated(pod)) {
                    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
                    String patch = "{\"status\":{\"phase\":\"Failed\",\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\","
                            + "\"reason\":\"DeletionByPodGC\",\"message\":\"" + message + "\",\"lastTransitionTime\":\"" + now + "\"}]}}";
                    client.pods().inNamespace(namespace).withName(name).subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
                }
                client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
            }
        };
    }

    @Override
    public synchronized void start(int workers) {
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("pod-garbage-collector").factory());
        timer.scheduleWithFixedDelay(() -> {
            try {
                collect();
            } catch (RuntimeException e) {
                LOG.warn("pod garbage collection failed: {}", e.getMessage());
            }
        }, CHECK_PERIOD.toMillis(), CHECK_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
