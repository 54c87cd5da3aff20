package io.k4j.controllers.endpointslice;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.pods.Pods;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllers.endpointutil.EndpointPods;
import io.k4j.controllers.endpointutil.ObjectWriter;
import io.k4j.controllers.endpointutil.TriggerTimeTracker;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * kube-controller-manager's {@code endpointslice} controller: every service with a selector has IPv4 EndpointSlices
 * (at most {@value #MAX_ENDPOINTS_PER_SLICE} endpoints each, one group of slices per distinct set of resolved ports)
 * listing the pods it selects with upstream's conditions: {@code serving} follows readiness, {@code terminating}
 * marks pods being deleted (which stay listed), {@code ready} is serving and not terminating (always true with
 * {@code publishNotReadyAddresses}). Slices carry {@code kubernetes.io/service-name}, upstream's
 * {@code managed-by} label and a controller reference to the service (the garbage collector removes them with it); a
 * service without endpoints keeps one empty placeholder slice. Existing slices are updated in place so that
 * unchanged endpoints stay where they are. Writes as the {@code endpointslice-controller} service account, without
 * batching. Thread-safe.
 */
public final class EndpointSliceController implements Controller {
    public static final String NAME = "endpointslice";
    public static final String SERVICE_ACCOUNT = "endpointslice-controller";
    /** Upstream's {@code --concurrent-service-endpoint-syncs} default. */
    public static final int DEFAULT_WORKERS = 5;
    /** Upstream's {@code --max-endpoints-per-slice} default. */
    public static final int MAX_ENDPOINTS_PER_SLICE = 100;
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    public static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "endpointslice-controller.k8s.io";
    static final String ZONE_LABEL = "topology.kubernetes.io/zone";

    private final Lister<Service> services;
    private final Lister<Pod> pods;
    private final Lister<Node> nodes;
    private final Lister<EndpointSlice> slices;
    private final ObjectWriter<EndpointSlice> writer;
    private final TriggerTimeTracker triggerTimes = new TriggerTimeTracker();
    /** Per service, the slices this controller wrote (name ▶ resourceVersion, or -1 when deleted) until the cache shows them. */
    private final Map<String, Map<String, Long>> expectedSlices = new ConcurrentHashMap<>();
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    public EndpointSliceController(ControllerContext context) {
        this(context.informers().lister(Service.class), context.informers().lister(Pod.class), context.informers().lister(Node.class),
                context.informers().lister(EndpointSlice.class), ObjectWriter.api(context.clientFor(SERVICE_ACCOUNT).discovery().v1().endpointSlices()));
        context.informers().informer(Service.class).addEventHandler(EndpointPods.serviceHandler(queue));
        context.informers().informer(Pod.class).addEventHandler(EndpointPods.podHandler(services, queue));
        context.informers().informer(EndpointSlice.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(EndpointSlice slice) {
                enqueueChangedByOthers(slice);
            }

            @Override
            public void onUpdate(EndpointSlice oldSlice, EndpointSlice newSlice) {
                enqueueChangedByOthers(newSlice);
            }

            @Override
            public void onDelete(EndpointSlice slice, boolean deletedFinalStateUnknown) {
                serviceKey(slice).ifPresent(queue::add);
            }
        });
    }

    EndpointSliceController(Lister<Service> services, Lister<Pod> pods, Lister<Node> nodes, Lister<EndpointSlice> slices, ObjectWriter<EndpointSlice> writer) {
        this.services = requireNonNull(services, "services is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.slices = requireNonNull(slices, "slices is null");
        this.writer = requireNonNull(writer, "writer is null");
    }

    WorkQueue<String> queue() {
        return queue;
    }

    /** A slice of ours changed by someone else (or our own write arriving) brings its service back in line. */
    private void enqueueChangedByOthers(EndpointSlice slice) {
        Optional<String> key = serviceKey(slice);
        if (key.isEmpty()) {
            return;
        }
        Map<String, Long> expected = expectedSlices.get(key.get());
        Long version = expected == null ? null : expected.get(slice.getMetadata().getName());
        if (version == null || parseVersion(slice) > version) {
            queue.add(key.get());
        }
    }

    private static Optional<String> serviceKey(EndpointSlice slice) {
        Map<String, String> labels = slice.getMetadata().getLabels();
        if (labels == null || !MANAGED_BY.equals(labels.get(MANAGED_BY_LABEL)) || labels.get(SERVICE_NAME_LABEL) == null) {
            return Optional.empty();
        }
        return Optional.of(ObjectKeys.key(slice.getMetadata().getNamespace(), labels.get(SERVICE_NAME_LABEL)));
    }

    /** Thrown when the slice cache does not show this controller's own last writes yet: acting now would duplicate. */
    static final class StaleCacheException extends RuntimeException {
        StaleCacheException(String key) {
            super("the EndpointSlice cache does not show the last writes for service " + key + " yet");
        }
    }

    void sync(String key) {
        String namespace = ObjectKeys.namespace(key);
        String name = ObjectKeys.name(key);
        Optional<Service> found = services.getByKey(key);
        if (found.isEmpty()) {
            // The garbage collector deletes the slices through their owner reference, as upstream.
            triggerTimes.forget(key);
            expectedSlices.remove(key);
            return;
        }
        Service service = found.get();
        if (!EndpointPods.managesEndpoints(service)) {
            return;
        }
        List<EndpointSlice> existing = new ArrayList<>();
        for (EndpointSlice slice : slices.list(namespace)) {
            if (serviceKey(slice).filter(key::equals).isPresent() && "IPv4".equals(slice.getAddressType())) {
                existing.add(slice);
            }
        }
        checkCacheFresh(key, existing);
        List<Pod> selected = EndpointPods.selectedPods(pods, service);
        Optional<Instant> triggerTime = triggerTimes.compute(service, selected);

        // The desired endpoints grouped by their resolved ports.
        Map<String, List<EndpointPort>> portsByGroup = new TreeMap<>();
        Map<String, Map<String, Endpoint>> endpointsByGroup = new TreeMap<>();
        for (Pod pod : selected) {
            if (!EndpointPods.shouldPodBeInEndpoints(pod, true)) {
                continue;
            }
            List<EndpointPort> ports = ports(service, pod);
            if (ports.isEmpty() && service.getSpec().getPorts() != null && !service.getSpec().getPorts().isEmpty()) {
                continue;
            }
            String group = portsKey(ports);
            portsByGroup.putIfAbsent(group, ports);
            Endpoint endpoint = endpoint(service, pod);
            endpointsByGroup.computeIfAbsent(group, ignored -> new TreeMap<>()).put(endpointIdentity(endpoint), endpoint);
        }

        Map<String, String> labels = labels(service);
        List<EndpointSlice> toCreate = new ArrayList<>();
        List<EndpointSlice> toUpdate = new ArrayList<>();
        List<EndpointSlice> toDelete = new ArrayList<>();
        Map<String, List<EndpointSlice>> existingByGroup = new HashMap<>();
        for (EndpointSlice slice : existing) {
            existingByGroup.computeIfAbsent(portsKey(slice.getPorts() == null ? List.of() : slice.getPorts()), ignored -> new ArrayList<>()).add(slice);
        }
        for (Map.Entry<String, List<EndpointSlice>> group : existingByGroup.entrySet()) {
            if (!portsByGroup.containsKey(group.getKey())) {
                toDelete.addAll(group.getValue());
            }
        }
        for (Map.Entry<String, List<EndpointPort>> group : portsByGroup.entrySet()) {
            Map<String, Endpoint> remaining = new LinkedHashMap<>(endpointsByGroup.get(group.getKey()));
            List<EndpointSlice> kept = new ArrayList<>();
            // Endpoints stay in the slice they are in; what left is removed.
            for (EndpointSlice slice : existingByGroup.getOrDefault(group.getKey(), List.of())) {
                List<Endpoint> endpoints = new ArrayList<>();
                for (Endpoint endpoint : slice.getEndpoints() == null ? List.<Endpoint>of() : slice.getEndpoints()) {
                    Endpoint desired = remaining.remove(endpointIdentity(endpoint));
                    if (desired != null && endpoints.size() < MAX_ENDPOINTS_PER_SLICE) {
                        endpoints.add(desired);
                    }
                }
                kept.add(new EndpointSliceBuilder(slice).withEndpoints(endpoints).build());
            }
            // New endpoints fill the kept slices, then new slices.
            Iterator<Endpoint> additions = remaining.values().iterator();
            for (EndpointSlice slice : kept) {
                List<Endpoint> endpoints = new ArrayList<>(slice.getEndpoints());
                while (endpoints.size() < MAX_ENDPOINTS_PER_SLICE && additions.hasNext()) {
                    endpoints.add(additions.next());
                }
                EndpointSlice updated = new EndpointSliceBuilder(slice).withEndpoints(sorted(endpoints)).build();
                EndpointSlice original = existing.stream().filter(candidate -> candidate.getMetadata().getName().equals(slice.getMetadata().getName()))
                        .findFirst().orElseThrow();
                if (endpoints.isEmpty()) {
                    toDelete.add(original);
                } else if (changed(original, updated, labels)) {
                    toUpdate.add(withMetadata(updated, service, labels, triggerTime));
                }
            }
            while (additions.hasNext()) {
                List<Endpoint> endpoints = new ArrayList<>();
                while (endpoints.size() < MAX_ENDPOINTS_PER_SLICE && additions.hasNext()) {
                    endpoints.add(additions.next());
                }
                toCreate.add(withMetadata(new EndpointSliceBuilder().withNewMetadata().withNamespace(namespace).withGenerateName(name + "-").endMetadata()
                        .withAddressType("IPv4").withPorts(group.getValue()).withEndpoints(sorted(endpoints)).build(), service, labels, triggerTime));
            }
        }
        if (portsByGroup.isEmpty()) {
            // No endpoints at all: one empty placeholder slice, as upstream keeps.
            Optional<EndpointSlice> placeholder = toDelete.stream().filter(EndpointSliceController::isPlaceholder).findFirst();
            if (placeholder.isPresent()) {
                toDelete.remove(placeholder.get());
                if (!labels.equals(placeholder.get().getMetadata().getLabels())) {
                    toUpdate.add(withMetadata(placeholder.get(), service, labels, triggerTime));
                }
            } else {
                toCreate.add(withMetadata(new EndpointSliceBuilder().withNewMetadata().withNamespace(namespace).withGenerateName(name + "-").endMetadata()
                        .withAddressType("IPv4").withPorts(List.of()).withEndpoints(List.of()).build(), service, labels, triggerTime));
            }
        }
        write(key, toCreate, toUpdate, toDelete);
    }

    private void write(String key, List<EndpointSlice> toCreate, List<EndpointSlice> toUpdate, List<EndpointSlice> toDelete) {
        Map<String, Long> expected = expectedSlices.computeIfAbsent(key, ignored -> new ConcurrentHashMap<>());
        try {
            for (EndpointSlice slice : toCreate) {
                EndpointSlice created = writer.create(slice);
                expected.put(created.getMetadata().getName(), parseVersion(created));
            }
            for (EndpointSlice slice : toUpdate) {
                EndpointSlice updated = writer.update(slice);
                expected.put(updated.getMetadata().getName(), parseVersion(updated));
            }
            for (EndpointSlice slice : toDelete) {
                writer.delete(slice.getMetadata().getNamespace(), slice.getMetadata().getName());
                expected.put(slice.getMetadata().getName(), -1L);
            }
        } catch (KubernetesClientException e) {
            // A namespace being deleted refuses new objects; its services are going away too.
            if (e.getCode() != HttpURLConnection.HTTP_FORBIDDEN) {
                throw e;
            }
        }
    }

    /** Fails the sync while the cache lags behind this controller's own writes; the key is retried shortly. */
    private void checkCacheFresh(String key, List<EndpointSlice> existing) {
        Map<String, Long> expected = expectedSlices.get(key);
        if (expected == null || expected.isEmpty()) {
            return;
        }
        Map<String, Long> cached = new HashMap<>();
        existing.forEach(slice -> cached.put(slice.getMetadata().getName(), parseVersion(slice)));
        for (Iterator<Map.Entry<String, Long>> iterator = expected.entrySet().iterator(); iterator.hasNext(); ) {
            Map.Entry<String, Long> entry = iterator.next();
            Long version = cached.get(entry.getKey());
            boolean seen = entry.getValue() < 0 ? version == null : version != null && version >= entry.getValue();
            if (!seen) {
                throw new StaleCacheException(key);
            }
            iterator.remove();
        }
    }

    private static boolean isPlaceholder(EndpointSlice slice) {
        return (slice.getEndpoints() == null || slice.getEndpoints().isEmpty()) && (slice.getPorts() == null || slice.getPorts().isEmpty());
    }

    private static boolean changed(EndpointSlice original, EndpointSlice updated, Map<String, String> labels) {
        return !canonical(original.getEndpoints()).equals(canonical(updated.getEndpoints()))
                || !labels.equals(original.getMetadata().getLabels() == null ? Map.of() : original.getMetadata().getLabels());
    }

    private static EndpointSlice withMetadata(EndpointSlice slice, Service service, Map<String, String> labels, Optional<Instant> triggerTime) {
        Map<String, String> annotations = new LinkedHashMap<>(slice.getMetadata().getAnnotations() == null ? Map.of() : slice.getMetadata().getAnnotations());
        if (triggerTime.isPresent()) {
            annotations.put(EndpointPods.LAST_CHANGE_TRIGGER_TIME, triggerTime.get().toString());
        } else {
            annotations.remove(EndpointPods.LAST_CHANGE_TRIGGER_TIME);
        }
        OwnerReference owner = new OwnerReferenceBuilder().withApiVersion("v1").withKind("Service").withName(service.getMetadata().getName())
                .withUid(service.getMetadata().getUid()).withController(true).withBlockOwnerDeletion(true).build();
        return new EndpointSliceBuilder(slice).editMetadata().withLabels(labels).withAnnotations(annotations.isEmpty() ? null : annotations)
                .withOwnerReferences(owner).endMetadata().build();
    }

    /** The service's labels (but ours) plus ours, as upstream sets them on slices. */
    static Map<String, String> labels(Service service) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (service.getMetadata().getLabels() != null) {
            service.getMetadata().getLabels().forEach((label, value) -> {
                if (!label.equals(SERVICE_NAME_LABEL) && !label.equals(MANAGED_BY_LABEL) && !label.equals(EndpointPods.HEADLESS_LABEL)) {
                    labels.put(label, value);
                }
            });
        }
        labels.put(SERVICE_NAME_LABEL, service.getMetadata().getName());
        labels.put(MANAGED_BY_LABEL, MANAGED_BY);
        if (EndpointPods.isHeadless(service)) {
            labels.put(EndpointPods.HEADLESS_LABEL, "");
        }
        return labels;
    }

    private static List<EndpointPort> ports(Service service, Pod pod) {
        List<EndpointPort> ports = new ArrayList<>();
        for (ServicePort servicePort : service.getSpec().getPorts() == null ? List.<ServicePort>of() : service.getSpec().getPorts()) {
            OptionalInt number = EndpointPods.findPort(pod, servicePort);
            if (number.isPresent()) {
                ports.add(new EndpointPortBuilder().withName(Objects.toString(servicePort.getName(), "")).withPort(number.getAsInt())
                        .withProtocol(servicePort.getProtocol() == null ? "TCP" : servicePort.getProtocol()).withAppProtocol(servicePort.getAppProtocol()).build());
            }
        }
        return ports;
    }

    private Endpoint endpoint(Service service, Pod pod) {
        boolean serving = Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses()) || Pods.isReady(pod);
        boolean terminating = Pods.isTerminating(pod);
        boolean ready = Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses()) || (serving && !terminating);
        String nodeName = pod.getSpec() == null || pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty() ? null : pod.getSpec().getNodeName();
        String zone = nodeName == null ? null : nodes.get(nodeName).map(node -> node.getMetadata().getLabels()).map(nodeLabels -> nodeLabels.get(ZONE_LABEL))
                .filter(value -> !value.isEmpty()).orElse(null);
        return new EndpointBuilder().withAddresses(EndpointPods.podIp(pod).orElseThrow())
                .withNewConditions().withReady(ready).withServing(serving).withTerminating(terminating).endConditions()
                .withHostname(EndpointPods.shouldSetHostname(pod, service) ? pod.getSpec().getHostname() : null)
                .withNodeName(nodeName).withZone(zone)
                .withTargetRef(new ObjectReferenceBuilder().withKind("Pod").withNamespace(pod.getMetadata().getNamespace())
                        .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build())
                .build();
    }

    /** Which pod (address) an endpoint stands for, to keep it in its slice across changes. */
    private static String endpointIdentity(Endpoint endpoint) {
        String address = endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty() ? "" : endpoint.getAddresses().get(0);
        String uid = endpoint.getTargetRef() == null ? "" : Objects.toString(endpoint.getTargetRef().getUid(), "");
        return address + "|" + uid;
    }

    private static List<Endpoint> sorted(List<Endpoint> endpoints) {
        List<Endpoint> sorted = new ArrayList<>(endpoints);
        sorted.sort(Comparator.comparing(endpoint -> sortableAddress(endpoint)));
        return sorted;
    }

    private static String sortableAddress(Endpoint endpoint) {
        return EndpointPods.sortableIp(endpoint.getAddresses() == null || endpoint.getAddresses().isEmpty() ? "" : endpoint.getAddresses().get(0));
    }

    /** Content-only form of endpoints: what makes two slices list the same endpoints. */
    static Set<String> canonical(List<Endpoint> endpoints) {
        Set<String> result = new TreeSet<>();
        for (Endpoint endpoint : endpoints == null ? List.<Endpoint>of() : endpoints) {
            result.add(endpointIdentity(endpoint) + "|" + (endpoint.getConditions() == null ? "" : endpoint.getConditions().getReady() + "/"
                    + endpoint.getConditions().getServing() + "/" + endpoint.getConditions().getTerminating())
                    + "|" + Objects.toString(endpoint.getHostname(), "") + "|" + Objects.toString(endpoint.getNodeName(), "") + "|" + Objects.toString(endpoint.getZone(), "")
                    + "|" + (endpoint.getTargetRef() == null ? "" : endpoint.getTargetRef().getName()));
        }
        return result;
    }

    static String portsKey(List<EndpointPort> ports) {
        Set<String> keys = new TreeSet<>();
        for (EndpointPort port : ports) {
            keys.add(Objects.toString(port.getName(), "") + "|" + port.getPort() + "|" + Objects.toString(port.getProtocol(), "TCP") + "|"
                    + Objects.toString(port.getAppProtocol(), ""));
        }
        return String.join(",", keys);
    }

    private static long parseVersion(EndpointSlice slice) {
        String version = slice.getMetadata().getResourceVersion();
        try {
            return version == null ? 0 : Long.parseLong(version);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    @Override
    public void close() {
        workers.close();
    }
}
