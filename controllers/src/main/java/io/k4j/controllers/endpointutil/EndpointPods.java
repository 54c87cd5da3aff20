package io.k4j.controllers.endpointutil;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.ObjectKeys;
import io.k4j.controllerkit.pods.Pods;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What the endpoints and EndpointSlice controllers share, with upstream's definitions ({@code endpointutil},
 * {@code podutil.FindPort}): which pods a service selects and which services to sync when a pod changes, which pods
 * belong in a service's endpoints, which port a service port reaches on a pod. Thread-safe (stateless).
 */
public final class EndpointPods {
    /** Upstream's annotation: when the change that led to this endpoints write happened. */
    public static final String LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";
    /** Upstream's label on the endpoints of headless services. */
    public static final String HEADLESS_LABEL = "service.kubernetes.io/headless";

    private EndpointPods() {}

    /**
     * Whether the controllers manage the service's endpoints: it has a selector and is not ExternalName. A
     * selector-less service (such as {@code default/kubernetes}) keeps the endpoints its owner writes.
     */
    public static boolean managesEndpoints(Service service) {
        return service.getSpec() != null && !"ExternalName".equals(service.getSpec().getType()) && hasSelector(service);
    }

    /**
     * An empty selector counts as none: the client's model cannot tell an empty map from an absent one, and
     * upstream treats an absent selector as selecting nothing.
     */
    public static boolean hasSelector(Service service) {
        return service.getSpec() != null && service.getSpec().getSelector() != null && !service.getSpec().getSelector().isEmpty();
    }

    /** Whether the service's selector matches the pod's labels (same namespace). */
    public static boolean selects(Service service, Pod pod) {
        if (!hasSelector(service) || !Objects.equals(service.getMetadata().getNamespace(), pod.getMetadata().getNamespace())) {
            return false;
        }
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        for (Map.Entry<String, String> entry : service.getSpec().getSelector().entrySet()) {
            if (!entry.getValue().equals(labels.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** The pods a service selects, from the pod lister. */
    public static List<Pod> selectedPods(Lister<Pod> pods, Service service) {
        return pods.list(service.getMetadata().getNamespace()).stream().filter(pod -> selects(service, pod)).toList();
    }

    /** The services (with selectors) whose selector matches the pod. */
    public static List<Service> servicesSelecting(Lister<Service> services, Pod pod) {
        return services.list(pod.getMetadata().getNamespace()).stream().filter(service -> selects(service, pod)).toList();
    }

    /** Enqueues a service on every change of it. */
    public static ResourceEventHandler<Service> serviceHandler(WorkQueue<String> queue) {
        return EnqueueHandlers.onEveryChange(service -> queue.add(ObjectKeys.key(service)));
    }

    /** Enqueues the services that select a pod, before and after a change (labels may have moved it between services). */
    public static ResourceEventHandler<Pod> podHandler(Lister<Service> services, WorkQueue<String> queue) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                servicesSelecting(services, pod).forEach(service -> queue.add(ObjectKeys.key(service)));
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                if (Objects.equals(oldPod.getMetadata().getResourceVersion(), newPod.getMetadata().getResourceVersion())) {
                    return; // a resync, nothing changed
                }
                Set<String> keys = new LinkedHashSet<>();
                servicesSelecting(services, newPod).forEach(service -> keys.add(ObjectKeys.key(service)));
                if (!Objects.equals(oldPod.getMetadata().getLabels(), newPod.getMetadata().getLabels())) {
                    servicesSelecting(services, oldPod).forEach(service -> keys.add(ObjectKeys.key(service)));
                }
                keys.forEach(queue::add);
            }

            @Override
            public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                servicesSelecting(services, pod).forEach(service -> queue.add(ObjectKeys.key(service)));
            }
        };
    }

    /**
     * Upstream's {@code ShouldPodBeInEndpoints}: the pod has an IP, is not finished, and is not being deleted unless
     * terminating pods are wanted.
     */
    public static boolean shouldPodBeInEndpoints(Pod pod, boolean includeTerminating) {
        if (podIp(pod).isEmpty()) {
            return false;
        }
        if (!includeTerminating && Pods.isTerminating(pod)) {
            return false;
        }
        String phase = Pods.phase(pod);
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    /** The pod's IPv4 address (the cluster is IPv4 single-stack), empty when it has none yet. */
    public static Optional<String> podIp(Pod pod) {
        if (pod.getStatus() == null) {
            return Optional.empty();
        }
        List<String> candidates = new ArrayList<>();
        if (pod.getStatus().getPodIPs() != null) {
            for (PodIP ip : pod.getStatus().getPodIPs()) {
                candidates.add(ip.getIp());
            }
        }
        candidates.add(pod.getStatus().getPodIP());
        return candidates.stream().filter(ip -> ip != null && !ip.isEmpty() && !ip.contains(":")).findFirst();
    }

    /**
     * Upstream's {@code FindPort}: a numeric target port as is; a named one is looked up among the pod's container
     * ports (and restartable init containers') with the same protocol; empty when the pod has no such port.
     */
    public static OptionalInt findPort(Pod pod, ServicePort servicePort) {
        IntOrString target = servicePort.getTargetPort();
        String protocol = servicePort.getProtocol() == null ? "TCP" : servicePort.getProtocol();
        if (target == null) {
            return servicePort.getPort() == null ? OptionalInt.empty() : OptionalInt.of(servicePort.getPort());
        }
        if (target.getStrVal() == null) {
            Integer number = target.getIntVal();
            return number == null ? OptionalInt.empty() : OptionalInt.of(number);
        }
        String name = target.getStrVal();
        List<Container> containers = new ArrayList<>();
        if (pod.getSpec() != null) {
            if (pod.getSpec().getContainers() != null) {
                containers.addAll(pod.getSpec().getContainers());
            }
            if (pod.getSpec().getInitContainers() != null) {
                pod.getSpec().getInitContainers().stream().filter(container -> "Always".equals(container.getRestartPolicy())).forEach(containers::add);
            }
        }
        for (Container container : containers) {
            if (container.getPorts() == null) {
                continue;
            }
            for (ContainerPort port : container.getPorts()) {
                String portProtocol = port.getProtocol() == null ? "TCP" : port.getProtocol();
                if (name.equals(port.getName()) && protocol.equals(portProtocol) && port.getContainerPort() != null) {
                    return OptionalInt.of(port.getContainerPort());
                }
            }
        }
        return OptionalInt.empty();
    }

    /** Upstream's {@code ShouldSetHostname}: the pod names the service as its subdomain and has a hostname. */
    public static boolean shouldSetHostname(Pod pod, Service service) {
        String hostname = pod.getSpec() == null ? null : pod.getSpec().getHostname();
        return hostname != null && !hostname.isEmpty() && service.getMetadata().getName().equals(pod.getSpec().getSubdomain())
                && Objects.equals(service.getMetadata().getNamespace(), pod.getMetadata().getNamespace());
    }

    public static boolean isHeadless(Service service) {
        return "None".equals(service.getSpec().getClusterIP());
    }

    /** Zero-padded octets so that string order is numeric order. */
    public static String sortableIp(String ip) {
        if (ip == null || ip.contains(":")) {
            return Objects.toString(ip, "");
        }
        StringBuilder builder = new StringBuilder();
        for (String octet : ip.split("\\.")) {
            builder.append(builder.isEmpty() ? "" : ".").append("0".repeat(Math.max(0, 3 - octet.length()))).append(octet);
        }
        return builder.toString();
    }
}
