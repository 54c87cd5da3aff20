package io.k4j.controllers.endpoint;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointPort;
import io.fabric8.kubernetes.api.model.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.EndpointSubsetBuilder;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * kube-controller-manager's {@code endpoint} controller: the Endpoints object of every service with a selector lists
 * the IPs of the pods it selects, ready pods under {@code addresses} and the others under
 * {@code notReadyAddresses} (all under {@code addresses} with {@code publishNotReadyAddresses}), with the service's
 * ports resolved per pod (a pod without a named target port is left out of that port's subset); pods being deleted
 * are left out. Services without a selector keep the Endpoints their users write; a deleted service's Endpoints go
 * too. Writes as the {@code endpoint-controller} service account, as soon as an informer reports a change (no
 * batching). Thread-safe.
 */
public final class EndpointsController implements Controller {
    public static final String NAME = "endpoint";
    public static final String SERVICE_ACCOUNT = "endpoint-controller";
    /** Upstream's {@code --concurrent-endpoint-syncs} default. */
    public static final int DEFAULT_WORKERS = 5;

    private final Lister<Service> services;
    private final Lister<Pod> pods;
    private final Lister<Endpoints> endpoints;
    private final ObjectWriter<Endpoints> writer;
    private final TriggerTimeTracker triggerTimes = new TriggerTimeTracker();
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter(NAME);
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    public EndpointsController(ControllerContext context) {
        this(context.informers().lister(Service.class), context.informers().lister(Pod.class), context.informers().lister(Endpoints.class),
                ObjectWriter.api(context.clientFor(SERVICE_ACCOUNT).endpoints()));
        context.informers().informer(Service.class).addEventHandler(EndpointPods.serviceHandler(queue));
        context.informers().informer(Pod.class).addEventHandler(EndpointPods.podHandler(services, queue));
        context.informers().informer(Endpoints.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Endpoints object) {}

            @Override
            public void onUpdate(Endpoints oldObject, Endpoints newObject) {}

            @Override
            public void onDelete(Endpoints object, boolean deletedFinalStateUnknown) {
                // Someone deleted the Endpoints of a service we manage: write them again.
                queue.add(ObjectKeys.key(object));
            }
        });
    }

    EndpointsController(Lister<Service> services, Lister<Pod> pods, Lister<Endpoints> endpoints, ObjectWriter<Endpoints> writer) {
        this.services = requireNonNull(services, "services is null");
        this.pods = requireNonNull(pods, "pods is null");
        this.endpoints = requireNonNull(endpoints, "endpoints is null");
        this.writer = requireNonNull(writer, "writer is null");
    }

    WorkQueue<String> queue() {
        return queue;
    }

    void sync(String key) {
        String namespace = ObjectKeys.namespace(key);
        String name = ObjectKeys.name(key);
        Optional<Service> found = services.getByKey(key);
        if (found.isEmpty()) {
            triggerTimes.forget(key);
            writer.delete(namespace, name);
            return;
        }
        Service service = found.get();
        if (!EndpointPods.managesEndpoints(service)) {
            return;
        }
        List<Pod> selected = EndpointPods.selectedPods(pods, service);
        Optional<Instant> triggerTime = triggerTimes.compute(service, selected);
        List<EndpointSubset> subsets = subsets(service, selected);
        Map<String, String> labels = new LinkedHashMap<>(service.getMetadata().getLabels() == null ? Map.of() : service.getMetadata().getLabels());
        if (EndpointPods.isHeadless(service)) {
            labels.put(EndpointPods.HEADLESS_LABEL, "");
        } else {
            labels.remove(EndpointPods.HEADLESS_LABEL);
        }
        Optional<Endpoints> current = endpoints.get(namespace, name);
        if (current.isPresent() && canonical(current.get().getSubsets()).equals(canonical(subsets))
                && labels.equals(current.get().getMetadata().getLabels() == null ? Map.of() : current.get().getMetadata().getLabels())) {
            return;
        }
        EndpointsBuilder builder = current.map(EndpointsBuilder::new)
                .orElseGet(() -> new EndpointsBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata());
        Map<String, String> annotations = new LinkedHashMap<>();
        current.map(existing -> existing.getMetadata().getAnnotations()).ifPresent(annotations::putAll);
        if (triggerTime.isPresent()) {
            annotations.put(EndpointPods.LAST_CHANGE_TRIGGER_TIME, triggerTime.get().toString());
        } else {
            annotations.remove(EndpointPods.LAST_CHANGE_TRIGGER_TIME);
        }
        Endpoints desired = builder.editMetadata().withLabels(labels).withAnnotations(annotations.isEmpty() ? null : annotations).endMetadata()
                .withSubsets(subsets).build();
        if (current.isPresent()) {
            writer.update(desired);
            return;
        }
        try {
            writer.create(desired);
        } catch (KubernetesClientException e) {
            // A namespace being deleted refuses new objects; its services are going away too.
            if (e.getCode() != HttpURLConnection.HTTP_FORBIDDEN) {
                throw e;
            }
        }
    }

    /**
     * The subsets as upstream repacks them: one per distinct set of ports, each with the ready and not-ready
     * addresses that have exactly those ports, sorted so that equal content compares equal.
     */
    static List<EndpointSubset> subsets(Service service, List<Pod> pods) {
        boolean publishNotReady = Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses());
        List<ServicePort> servicePorts = service.getSpec().getPorts() == null ? List.of() : service.getSpec().getPorts();
        Map<String, List<EndpointPort>> portsByGroup = new TreeMap<>();
        Map<String, List<EndpointAddress>> readyByGroup = new HashMap<>();
        Map<String, List<EndpointAddress>> notReadyByGroup = new HashMap<>();
        for (Pod pod : pods) {
            if (!EndpointPods.shouldPodBeInEndpoints(pod, publishNotReady)) {
                continue;
            }
            List<EndpointPort> ports = new ArrayList<>();
            if (servicePorts.isEmpty() && !EndpointPods.isHeadless(service)) {
                continue;
            }
            for (ServicePort servicePort : servicePorts) {
                OptionalInt number = EndpointPods.findPort(pod, servicePort);
                if (number.isPresent()) {
                    ports.add(new EndpointPortBuilder().withName(emptyToNull(servicePort.getName())).withPort(number.getAsInt())
                            .withProtocol(servicePort.getProtocol() == null ? "TCP" : servicePort.getProtocol())
                            .withAppProtocol(servicePort.getAppProtocol()).build());
                }
            }
            if (!servicePorts.isEmpty() && ports.isEmpty()) {
                continue;
            }
            ports.sort(Comparator.comparing(EndpointsController::portKey));
            String group = String.join(",", ports.stream().map(EndpointsController::portKey).toList());
            portsByGroup.putIfAbsent(group, ports);
            boolean ready = publishNotReady || Pods.isReady(pod);
            (ready ? readyByGroup : notReadyByGroup).computeIfAbsent(group, ignored -> new ArrayList<>()).add(address(service, pod));
        }
        List<EndpointSubset> subsets = new ArrayList<>();
        for (Map.Entry<String, List<EndpointPort>> group : portsByGroup.entrySet()) {
            List<EndpointAddress> ready = sorted(readyByGroup.getOrDefault(group.getKey(), List.of()));
            List<EndpointAddress> notReady = sorted(notReadyByGroup.getOrDefault(group.getKey(), List.of()));
            subsets.add(new EndpointSubsetBuilder().withAddresses(ready.isEmpty() ? null : ready)
                    .withNotReadyAddresses(notReady.isEmpty() ? null : notReady)
                    .withPorts(group.getValue().isEmpty() ? null : group.getValue()).build());
        }
        return subsets;
    }

    private static EndpointAddress address(Service service, Pod pod) {
        ObjectReference target = new ObjectReferenceBuilder().withKind("Pod").withNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build();
        return new EndpointAddressBuilder().withIp(EndpointPods.podIp(pod).orElseThrow())
                .withNodeName(emptyToNull(pod.getSpec() == null ? null : pod.getSpec().getNodeName()))
                .withHostname(EndpointPods.shouldSetHostname(pod, service) ? pod.getSpec().getHostname() : null)
                .withTargetRef(target).build();
    }

    private static List<EndpointAddress> sorted(List<EndpointAddress> addresses) {
        List<EndpointAddress> sorted = new ArrayList<>(addresses);
        sorted.sort(Comparator.comparing(EndpointsController::addressKey));
        return sorted;
    }

    /** Content-only form of subsets: what makes two lists of subsets the same Endpoints. */
    static Set<String> canonical(List<EndpointSubset> subsets) {
        Set<String> result = new TreeSet<>();
        if (subsets == null) {
            return result;
        }
        for (EndpointSubset subset : subsets) {
            Set<String> ready = new TreeSet<>();
            Set<String> notReady = new TreeSet<>();
            Set<String> ports = new TreeSet<>();
            if (subset.getAddresses() != null) {
                subset.getAddresses().forEach(address -> ready.add(addressKey(address)));
            }
            if (subset.getNotReadyAddresses() != null) {
                subset.getNotReadyAddresses().forEach(address -> notReady.add(addressKey(address)));
            }
            if (subset.getPorts() != null) {
                subset.getPorts().forEach(port -> ports.add(portKey(port)));
            }
            if (!ready.isEmpty() || !notReady.isEmpty()) {
                result.add(ready + "/" + notReady + "/" + ports);
            }
        }
        return result;
    }

    private static String addressKey(EndpointAddress address) {
        ObjectReference target = address.getTargetRef();
        return EndpointPods.sortableIp(address.getIp()) + "|" + Objects.toString(address.getNodeName(), "") + "|" + Objects.toString(address.getHostname(), "")
                + "|" + (target == null ? "" : target.getKind() + "/" + target.getNamespace() + "/" + target.getName() + "/" + target.getUid());
    }

    private static String portKey(EndpointPort port) {
        return Objects.toString(port.getName(), "") + "|" + port.getPort() + "|" + Objects.toString(port.getProtocol(), "TCP") + "|"
                + Objects.toString(port.getAppProtocol(), "");
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
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
