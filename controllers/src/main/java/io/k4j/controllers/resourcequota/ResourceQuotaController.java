package io.k4j.controllers.resourcequota;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.quota.QuotaUsage;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllers.dynamic.ApiResource;
import io.k4j.controllers.dynamic.DynamicClient;
import io.k4j.controllers.dynamic.ResourceDiscovery;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * kube-controller-manager's {@code resourcequota} controller: keeps each ResourceQuota's {@code status.hard} equal to
 * its spec and {@code status.used} equal to what the namespace's objects count, recounting when the quota changes,
 * when a counted object is deleted or changes its usage (releasing what admission charged), and every 5 minutes for
 * every quota. The apiserver's ResourceQuota admission charges creates as they happen with the same rules. Writes
 * as the {@code resourcequota-controller} service account. Thread-safe.
 */
public final class ResourceQuotaController implements Controller {
    public static final String NAME = "resourcequota";
    public static final String SERVICE_ACCOUNT = "resourcequota-controller";
    static final Duration FULL_RESYNC = Duration.ofMinutes(5);
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    /** Resources counted from the shared informers' caches; anything else is listed from the API when a quota names it. */
    static final Map<String, Class<? extends HasMetadata>> CACHED_TYPES = cachedTypes();

    private final Lister<ResourceQuota> quotas;
    private final QuotaCalculator calculator;
    private final Consumer<ResourceQuota> statusWriter;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter("resourcequota_primary");
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);
    private ScheduledExecutorService resync;

    public ResourceQuotaController(ControllerContext context) {
        this(context.informers().lister(ResourceQuota.class), new InformerObjectSource(context), statusWriter(context.clientFor(SERVICE_ACCOUNT)));
        context.informers().informer(ResourceQuota.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ResourceQuota quota) {
                queue.add(ObjectKeys.key(quota));
            }

            @Override
            public void onUpdate(ResourceQuota oldQuota, ResourceQuota newQuota) {
                if (!Objects.equals(oldQuota.getSpec(), newQuota.getSpec()) || !hardInStatus(newQuota)) {
                    queue.add(ObjectKeys.key(newQuota));
                }
            }

            @Override
            public void onDelete(ResourceQuota quota, boolean deletedFinalStateUnknown) {}
        });
        for (Map.Entry<String, Class<? extends HasMetadata>> entry : CACHED_TYPES.entrySet()) {
            String groupResource = entry.getKey();
            int dot = groupResource.indexOf('.');
            String group = dot < 0 ? "" : groupResource.substring(dot + 1);
            String resource = dot < 0 ? groupResource : groupResource.substring(0, dot);
            context.informers().informer(entry.getValue()).addEventHandler(new ReplenishmentHandler(group, resource));
        }
    }

    ResourceQuotaController(Lister<ResourceQuota> quotas, QuotaCalculator.ObjectSource objects, Consumer<ResourceQuota> statusWriter) {
        this.quotas = requireNonNull(quotas, "quotas is null");
        this.calculator = new QuotaCalculator(objects);
        this.statusWriter = requireNonNull(statusWriter, "statusWriter is null");
    }

    private static Map<String, Class<? extends HasMetadata>> cachedTypes() {
        Map<String, Class<? extends HasMetadata>> types = new LinkedHashMap<>();
        types.put("pods", Pod.class);
        types.put("services", Service.class);
        types.put("configmaps", ConfigMap.class);
        types.put("secrets", Secret.class);
        types.put("persistentvolumeclaims", PersistentVolumeClaim.class);
        types.put("replicationcontrollers", ReplicationController.class);
        types.put("resourcequotas", ResourceQuota.class);
        types.put("deployments.apps", Deployment.class);
        types.put("replicasets.apps", ReplicaSet.class);
        types.put("statefulsets.apps", StatefulSet.class);
        types.put("daemonsets.apps", DaemonSet.class);
        types.put("jobs.batch", Job.class);
        types.put("cronjobs.batch", CronJob.class);
        return Map.copyOf(types);
    }

    /** Recounts a quota when a counted object goes away or its usage changes: what admission charged is released here. */
    private final class ReplenishmentHandler implements ResourceEventHandler<HasMetadata> {
        private final String group;
        private final String resource;

        ReplenishmentHandler(String group, String resource) {
            this.group = group;
            this.resource = resource;
        }

        /**
         * Admission charges creates, but an object created while a new quota had no status yet is charged by no one;
         * recounting the namespace's quotas on adds (deduplicated by the queue) closes that gap.
         */
        @Override
        public void onAdd(HasMetadata object) {
            String namespace = object.getMetadata().getNamespace();
            if (namespace != null && !quotas.list(namespace).isEmpty()) {
                enqueueNamespace(namespace);
            }
        }

        @Override
        public void onUpdate(HasMetadata oldObject, HasMetadata newObject) {
            String namespace = newObject.getMetadata().getNamespace();
            if (namespace == null || quotas.list(namespace).isEmpty()) {
                return;
            }
            if (!QuotaUsage.of(group, resource, toJson(oldObject)).equals(QuotaUsage.of(group, resource, toJson(newObject)))) {
                enqueueNamespace(namespace);
            }
        }

        @Override
        public void onDelete(HasMetadata object, boolean deletedFinalStateUnknown) {
            String namespace = object.getMetadata().getNamespace();
            if (namespace != null) {
                enqueueNamespace(namespace);
            }
        }
    }

    void enqueueNamespace(String namespace) {
        quotas.list(namespace).forEach(quota -> queue.add(ObjectKeys.key(quota)));
    }

    void enqueueAll() {
        quotas.list().forEach(quota -> queue.add(ObjectKeys.key(quota)));
    }

    WorkQueue<String> queue() {
        return queue;
    }

    /** Recounts one quota and writes its status when it differs. */
    void sync(String key) {
        Optional<ResourceQuota> found = quotas.getByKey(key);
        if (found.isEmpty()) {
            return;
        }
        ResourceQuota quota = found.get();
        Map<String, io.fabric8.kubernetes.api.model.Quantity> hard = quota.getSpec() == null || quota.getSpec().getHard() == null
                ? Map.of() : quota.getSpec().getHard();
        Map<String, Quantity> used = calculator.usage(toJson(quota), quota.getMetadata().getNamespace(), hard.keySet());
        Map<String, io.fabric8.kubernetes.api.model.Quantity> usedStatus = new TreeMap<>();
        used.forEach((name, value) -> usedStatus.put(name, new io.fabric8.kubernetes.api.model.Quantity(value.toString())));
        boolean unchanged = quota.getStatus() != null
                && sameQuantities(quota.getStatus().getHard(), hard)
                && sameQuantities(quota.getStatus().getUsed(), usedStatus);
        if (unchanged) {
            return;
        }
        ResourceQuota updated = new ResourceQuotaBuilder(quota).withNewStatus().withHard(new TreeMap<>(hard)).withUsed(usedStatus).endStatus().build();
        statusWriter.accept(updated);
    }

    private static boolean hardInStatus(ResourceQuota quota) {
        Map<String, io.fabric8.kubernetes.api.model.Quantity> hard = quota.getSpec() == null || quota.getSpec().getHard() == null ? Map.of() : quota.getSpec().getHard();
        return quota.getStatus() != null && sameQuantities(quota.getStatus().getHard(), hard);
    }

    static boolean sameQuantities(Map<String, io.fabric8.kubernetes.api.model.Quantity> left, Map<String, io.fabric8.kubernetes.api.model.Quantity> right) {
        Map<String, io.fabric8.kubernetes.api.model.Quantity> first = left == null ? Map.of() : left;
        Map<String, io.fabric8.kubernetes.api.model.Quantity> second = right == null ? Map.of() : right;
        if (!first.keySet().equals(second.keySet())) {
            return false;
        }
        for (Map.Entry<String, io.fabric8.kubernetes.api.model.Quantity> entry : first.entrySet()) {
            if (Quantity.parse(entry.getValue().toString()).compareTo(Quantity.parse(second.get(entry.getKey()).toString())) != 0) {
                return false;
            }
        }
        return true;
    }

    static JsonNode toJson(Object object) {
        return SERIALIZATION.convertValue(object, JsonNode.class);
    }

    private static Consumer<ResourceQuota> statusWriter(KubernetesClient client) {
        return quota -> client.resourceQuotas().inNamespace(quota.getMetadata().getNamespace()).resource(quota).updateStatus();
    }

    /** Objects from the shared informers' caches for the common resources, from the API for the rest. */
    private static final class InformerObjectSource implements QuotaCalculator.ObjectSource {
        private final ControllerContext context;
        private final DynamicClient dynamic;
        private volatile Map<String, ApiResource> discovered = Map.of();

        InformerObjectSource(ControllerContext context) {
            this.context = context;
            this.dynamic = new DynamicClient(context.client());
            CACHED_TYPES.values().forEach(type -> context.informers().informer(type));
        }

        @Override
        public List<JsonNode> list(String group, String resource, String namespace) {
            String groupResource = group.isEmpty() ? resource : resource + "." + group;
            Class<? extends HasMetadata> type = CACHED_TYPES.get(groupResource);
            if (type != null) {
                return context.informers().lister(type).list(namespace).stream().map(ResourceQuotaController::toJson).toList();
            }
            ApiResource apiResource = discovered.get(groupResource);
            if (apiResource == null) {
                Map<String, ApiResource> fresh = new LinkedHashMap<>();
                ResourceDiscovery.preferred(context.client()).forEach(candidate -> fresh.putIfAbsent(candidate.groupResource(), candidate));
                discovered = Map.copyOf(fresh);
                apiResource = fresh.get(groupResource);
            }
            if (apiResource == null || !apiResource.namespaced() || !apiResource.supports("list")) {
                return List.of();
            }
            return dynamic.list(apiResource, namespace).stream().map(ResourceQuotaController::toJson).toList();
        }
    }

    @Override
    public synchronized void start(int workerCount) {
        workers.start(workerCount);
        resync = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("resourcequota-resync").factory());
        resync.scheduleWithFixedDelay(this::enqueueAll, FULL_RESYNC.toMillis(), FULL_RESYNC.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (resync != null) {
            resync.shutdownNow();
        }
        workers.close();
    }
}
