package io.k4j.scheduler;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.InformerFactory;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.scheduler.cache.SchedulerCache;
import io.k4j.scheduler.config.KubeSchedulerConfiguration;
import io.k4j.scheduler.framework.ActionType;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.ClusterView;
import io.k4j.scheduler.framework.EventResource;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.Parallelizer;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PodNominator;
import io.k4j.scheduler.framework.SchedulerClient;
import io.k4j.scheduler.plugins.InTreeRegistry;
import io.k4j.scheduler.queue.SchedulingQueue;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-scheduler as a component: informers on pods, nodes and the objects plugins read, the cache and queue they
 * feed, the scheduling thread, the binding executor and the periodic flushes (backoffQ every second, unschedulable
 * pods every 30 seconds, expired assumed pods every second). Build with a validated configuration; an invalid one
 * fails in the constructor, before anything runs. Thread-safe.
 */
public final class SchedulerServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("scheduler");
    /** How long a bound pod may stay assumed without the informer confirming it. */
    static final Duration ASSUMED_POD_TTL = Duration.ofSeconds(30);

    private final KubernetesClient client;
    private final InformerFactory informers;
    private final SchedulerCache cache;
    private final SchedulingQueue queue;
    private final Scheduler scheduler;
    private final Parallelizer parallelizer;
    private final ExecutorService asyncExecutor;
    private final ScheduledExecutorService timers;
    private final EventHandlers handlers;
    private Thread schedulingThread;

    /**
     * @throws io.k4j.scheduler.config.InvalidConfigurationException when a profile's plugins or args are invalid
     */
    public SchedulerServer(KubernetesClient client, KubeSchedulerConfiguration config, EventRecorder events, InstantSource clock) {
        this.client = requireNonNull(client, "client is null");
        this.informers = new InformerFactory(client);
        Lister<Pod> pods = informers.lister(Pod.class);
        InformerClusterView clusterView = new InformerClusterView(informers.lister(Namespace.class), informers.lister(PodDisruptionBudget.class),
                informers.lister(Service.class), informers.lister(ReplicationController.class), informers.lister(ReplicaSet.class),
                informers.lister(StatefulSet.class));
        this.cache = new SchedulerCache(clock, ASSUMED_POD_TTL);
        this.parallelizer = new Parallelizer(Math.max(1, Math.min(config.parallelism(), Runtime.getRuntime().availableProcessors())));
        this.asyncExecutor = Executors.newVirtualThreadPerTaskExecutor();
        ApiSchedulerClient schedulerClient = new ApiSchedulerClient(client, events);
        QueueHolder holder = new QueueHolder();
        Map<String, Framework> frameworks = Profiles.build(config, InTreeRegistry.plugins(),
                new Framework.Services(clusterView, schedulerClient, holder, parallelizer, clock));
        this.queue = new SchedulingQueue(clock, frameworks, config.podInitialBackoff(), config.podMaxBackoff(), SchedulingQueue.DEFAULT_MAX_UNSCHEDULABLE_DURATION);
        holder.queue = queue;
        this.scheduler = new Scheduler(frameworks, queue, cache, schedulerClient,
                (namespace, name) -> pods.get(namespace, name).orElse(null), config.percentageOfNodesToScore(), asyncExecutor, clock);
        this.handlers = new EventHandlers(cache, queue, frameworks.keySet());
        this.timers = Executors.newSingleThreadScheduledExecutor(runnable -> Thread.ofPlatform().daemon().name("scheduler-timers").unstarted(runnable));
    }

    /**
     * Checks that every profile's plugins exist and their args are valid, without any apiserver.
     *
     * @throws io.k4j.scheduler.config.InvalidConfigurationException naming the invalid fields
     */
    public static void validate(KubeSchedulerConfiguration config) {
        Parallelizer parallelizer = new Parallelizer(1);
        Profiles.build(config, InTreeRegistry.plugins(), new Framework.Services(ClusterView.empty(),
                new NoWritesClient(), new QueueHolder(), parallelizer, InstantSource.system()));
    }

    /** A client for validation only: building profiles never writes. */
    private static final class NoWritesClient implements SchedulerClient {
        @Override
        public void bind(Pod pod, String nodeName) {
            throw new UnsupportedOperationException("validation client");
        }

        @Override
        public void deletePod(Pod pod) {
            throw new UnsupportedOperationException("validation client");
        }

        @Override
        public void patchPodStatus(Pod pod, PodCondition condition, String nominatedNodeName) {
            throw new UnsupportedOperationException("validation client");
        }

        @Override
        public void recordEvent(Pod regarding, String type, String reason, String action, String message) {
            throw new UnsupportedOperationException("validation client");
        }
    }

    /** The nominator handed to plugins before the queue exists; delegates once it does. */
    private static final class QueueHolder implements PodNominator {
        volatile SchedulingQueue queue;

        @Override
        public void addNominatedPod(PodInfo pod, String nodeName) {
            queue.addNominatedPod(pod, nodeName);
        }

        @Override
        public void deleteNominatedPodIfExists(PodInfo pod) {
            queue.deleteNominatedPodIfExists(pod);
        }

        @Override
        public List<PodInfo> nominatedPodsForNode(String nodeName) {
            return queue.nominatedPodsForNode(nodeName);
        }
    }

    /** Starts the informers, waits for their caches, then starts scheduling. */
    public synchronized void start(Duration cacheSyncTimeout) throws InterruptedException {
        informers.informer(Node.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                handlers.onNodeAdd(node);
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                handlers.onNodeUpdate(oldNode, newNode);
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                handlers.onNodeDelete(node);
            }
        });
        informers.informer(Pod.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                handlers.onPodAdd(pod);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                handlers.onPodUpdate(oldPod, newPod);
            }

            @Override
            public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                handlers.onPodDelete(pod);
            }
        });
        informers.informer(PodDisruptionBudget.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(PodDisruptionBudget budget) {}

            @Override
            public void onUpdate(PodDisruptionBudget oldBudget, PodDisruptionBudget newBudget) {}

            @Override
            public void onDelete(PodDisruptionBudget budget, boolean deletedFinalStateUnknown) {
                // A deleted budget may let preemption pick victims it protected.
                queue.moveAllToActiveOrBackoffQueue(new ClusterEvent(EventResource.POD_DISRUPTION_BUDGET,
                        ActionType.DELETE, "PodDisruptionBudgetDelete"));
            }
        });
        informers.start();
        if (!informers.waitForCacheSync(cacheSyncTimeout)) {
            LOG.warn("scheduler caches did not sync within {}; scheduling starts anyway and catches up", cacheSyncTimeout);
        }
        timers.scheduleWithFixedDelay(queue::flushBackoffQCompleted, 1, 1, TimeUnit.SECONDS);
        timers.scheduleWithFixedDelay(queue::flushUnschedulablePodsLeftover, 30, 30, TimeUnit.SECONDS);
        timers.scheduleWithFixedDelay(cache::cleanupExpiredAssumedPods, 1, 1, TimeUnit.SECONDS);
        schedulingThread = Thread.ofPlatform().name("scheduler").daemon().start(scheduler::run);
        LOG.info("scheduler started");
    }

    @Override
    public synchronized void close() {
        queue.close();
        if (schedulingThread != null) {
            schedulingThread.interrupt();
            try {
                schedulingThread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        timers.shutdownNow();
        informers.close();
        asyncExecutor.shutdown();
        parallelizer.shutdown();
    }
}
