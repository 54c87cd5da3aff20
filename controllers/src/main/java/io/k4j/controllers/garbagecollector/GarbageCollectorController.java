package io.k4j.controllers.garbagecollector;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllerkit.workqueue.Workers;
import io.k4j.controllers.dynamic.ApiResource;
import io.k4j.controllers.dynamic.DynamicClient;
import io.k4j.controllers.dynamic.ResourceDiscovery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's {@code garbage-collector}: watches every resource that supports list, watch and delete
 * (found through discovery, again every 30 seconds, so resources added later are covered), feeds the
 * {@link DependencyGraph}, and runs the {@link GarbageCollector}'s workers once every monitor has synced. Built-in
 * types use the manager's shared informers; other resources get generic informers of their own. Writes as the
 * {@code generic-garbage-collector} service account. Thread-safe.
 */
public final class GarbageCollectorController implements Controller {
    private static final Logger LOG = LoggerFactory.getLogger("garbage-collector");
    public static final String NAME = "garbage-collector";
    public static final String SERVICE_ACCOUNT = "generic-garbage-collector";
    private static final Duration DISCOVERY_PERIOD = Duration.ofSeconds(30);
    /** Upstream's default ignored resources: events are never owners worth tracking and change too often. */
    private static final Set<String> IGNORED = Set.of("events", "events.events.k8s.io");

    private final ControllerContext context;
    private final KubernetesClient readClient;
    private final WorkQueue<ObjectIdentity> attemptToDelete = WorkQueue.withDefaultRateLimiter("garbage_collector_attempt_to_delete");
    private final WorkQueue<ObjectIdentity> attemptToOrphan = WorkQueue.withDefaultRateLimiter("garbage_collector_attempt_to_orphan");
    private final DependencyGraph graph;
    private final GarbageCollector collector;
    private final Map<String, Monitor> monitors = new HashMap<>();
    private final ScheduledExecutorService discovery;
    private volatile ResourceKinds kinds = new ResourceKinds(List.of());
    private final List<Workers> workers = new ArrayList<>();
    private Thread starter;
    private boolean closed;

    /** One watched resource. */
    private record Monitor(ApiResource resource, SharedIndexInformer<? extends HasMetadata> informer, ResourceEventHandler<HasMetadata> handler, boolean owned) {}

    public GarbageCollectorController(ControllerContext context) {
        this.context = requireNonNull(context, "context is null");
        this.readClient = context.client();
        this.graph = new DependencyGraph(attemptToDelete, attemptToOrphan, this::virtualIdentity);
        KubernetesClient writeClient = context.clientFor(SERVICE_ACCOUNT);
        this.collector = new GarbageCollector(graph, new ApiObjectClient(new DynamicClient(writeClient)), () -> kinds, attemptToDelete);
        this.discovery = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("garbage-collector-discovery").factory());
        try {
            resyncMonitors(false);
        } catch (RuntimeException e) {
            LOG.warn("garbage collector discovery failed, retrying in {}s: {}", DISCOVERY_PERIOD.toSeconds(), e.getMessage());
        }
    }

    @Override
    public synchronized void start(int workerCount) {
        startOwnedInformers();
        discovery.scheduleWithFixedDelay(this::periodicResync, DISCOVERY_PERIOD.toMillis(), DISCOVERY_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        starter = Thread.ofPlatform().daemon().name("garbage-collector-start").start(() -> {
            try {
                while (!allSynced()) {
                    Thread.sleep(100);
                }
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
                workers.add(Workers.start(attemptToDelete, workerCount, collector::attemptToDelete));
                workers.add(Workers.start(attemptToOrphan, workerCount, collector::attemptToOrphan));
            }
            LOG.info("garbage collector synced: {} resources monitored, {} objects in the graph", monitorCount(), graph.size());
        });
    }

    private synchronized int monitorCount() {
        return monitors.size();
    }

    private synchronized boolean allSynced() {
        return monitors.values().stream().allMatch(monitor -> monitor.informer().hasSynced());
    }

    private void periodicResync() {
        try {
            resyncMonitors(true);
        } catch (RuntimeException e) {
            LOG.warn("garbage collector discovery failed: {}", e.getMessage());
        }
    }

    /** Watches every deletable, listable resource the apiserver serves now, and stops watching those it no longer serves. */
    private synchronized void resyncMonitors(boolean startNew) {
        if (closed) {
            return;
        }
        List<ApiResource> all = ResourceDiscovery.all(readClient);
        kinds = new ResourceKinds(all);
        Map<String, ApiResource> wanted = new HashMap<>();
        for (ApiResource resource : ResourceDiscovery.preferredOf(all)) {
            if (resource.supports("list") && resource.supports("watch") && resource.supports("delete") && !IGNORED.contains(resource.groupResource())) {
                wanted.putIfAbsent(resource.groupResource(), resource);
            }
        }
        boolean added = false;
        for (Map.Entry<String, ApiResource> entry : wanted.entrySet()) {
            Monitor existing = monitors.get(entry.getKey());
            if (existing != null && existing.resource().equals(entry.getValue())) {
                continue;
            }
            if (existing != null) {
                stop(existing);
            }
            monitors.put(entry.getKey(), monitor(entry.getValue()));
            added = true;
        }
        for (String gone : new ArrayList<>(monitors.keySet())) {
            if (!wanted.containsKey(gone)) {
                stop(monitors.remove(gone));
            }
        }
        if (added && startNew) {
            context.informers().start();
            startOwnedInformers();
        }
    }

    private synchronized void startOwnedInformers() {
        for (Monitor monitor : monitors.values()) {
            if (monitor.owned() && !monitor.informer().isRunning()) {
                monitor.informer().start();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Monitor monitor(ApiResource resource) {
        ResourceEventHandler<HasMetadata> handler = new GraphHandler(resource);
        Class<? extends KubernetesResource> type = readClient.getKubernetesSerialization().getRegisteredKubernetesResource(resource.apiVersion(), resource.kind());
        if (type != null && HasMetadata.class.isAssignableFrom(type) && type != GenericKubernetesResource.class) {
            SharedIndexInformer<HasMetadata> informer = (SharedIndexInformer<HasMetadata>) context.informers().informer((Class<HasMetadata>) type);
            informer.addEventHandler(handler);
            return new Monitor(resource, informer, handler, false);
        }
        SharedIndexInformer<GenericKubernetesResource> informer = readClient.genericKubernetesResources(resource.definitionContext()).inAnyNamespace().runnableInformer(0);
        informer.addEventHandler(handler);
        return new Monitor(resource, informer, handler, true);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void stop(Monitor monitor) {
        if (monitor.owned()) {
            monitor.informer().stop();
        } else {
            ((SharedIndexInformer) monitor.informer()).removeEventHandler(monitor.handler());
        }
    }

    /** Owners named by references carry no namespace: a namespaced owner shares its dependent's, a cluster-scoped one has none. */
    private ObjectIdentity virtualIdentity(ObjectIdentity implied) {
        return kinds.resolve(implied.apiVersion(), implied.kind())
                .filter(resource -> !resource.namespaced())
                .map(resource -> new ObjectIdentity(implied.apiVersion(), implied.kind(), "", implied.name(), implied.uid()))
                .orElse(implied);
    }

    /** Turns informer events of one resource into graph changes. */
    private final class GraphHandler implements ResourceEventHandler<HasMetadata> {
        private final ApiResource resource;

        GraphHandler(ApiResource resource) {
            this.resource = resource;
        }

        @Override
        public void onAdd(HasMetadata object) {
            graph.observe(ObservedObject.of(resource.apiVersion(), resource.kind(), object.getMetadata()));
        }

        @Override
        public void onUpdate(HasMetadata oldObject, HasMetadata newObject) {
            graph.observe(ObservedObject.of(resource.apiVersion(), resource.kind(), newObject.getMetadata()));
        }

        @Override
        public void onDelete(HasMetadata object, boolean deletedFinalStateUnknown) {
            graph.forget(ObservedObject.of(resource.apiVersion(), resource.kind(), object.getMetadata()));
        }
    }

    @Override
    public void close() {
        List<Workers> running;
        List<Monitor> watched;
        synchronized (this) {
            closed = true;
            running = new ArrayList<>(workers);
            workers.clear();
            watched = new ArrayList<>(monitors.values());
            monitors.clear();
        }
        discovery.shutdownNow();
        if (starter != null) {
            starter.interrupt();
        }
        attemptToDelete.shutDown();
        attemptToOrphan.shutDown();
        running.forEach(Workers::close);
        watched.forEach(GarbageCollectorController::stop);
    }
}
