package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects every cluster starts with, created (or repaired) on each start as upstream's apiserver post-start
 * hooks do: the system namespaces, the {@code kubernetes} service and its endpoints, the system priority
 * classes, and the bootstrap RBAC policy. Idempotent: existing objects are kept.
 */
final class Bootstrap {
    private static final Logger LOG = LoggerFactory.getLogger("bootstrap");
    static final List<String> SYSTEM_NAMESPACES = List.of("default", "kube-system", "kube-public", "kube-node-lease");

    private static final GroupVersionResource NAMESPACES = new GroupVersionResource("", "v1", "namespaces");
    private static final GroupVersionResource SERVICES = new GroupVersionResource("", "v1", "services");
    private static final GroupVersionResource ENDPOINTS = new GroupVersionResource("", "v1", "endpoints");
    private static final GroupVersionResource ENDPOINT_SLICES = new GroupVersionResource("discovery.k8s.io", "v1", "endpointslices");
    private static final GroupVersionResource SERVICE_ACCOUNTS = new GroupVersionResource("", "v1", "serviceaccounts");
    private static final GroupVersionResource CONFIG_MAPS = new GroupVersionResource("", "v1", "configmaps");
    private static final GroupVersionResource PRIORITY_CLASSES = new GroupVersionResource("scheduling.k8s.io", "v1", "priorityclasses");
    private static final GroupVersionResource CLUSTER_ROLES = new GroupVersionResource("rbac.authorization.k8s.io", "v1", "clusterroles");
    private static final GroupVersionResource CLUSTER_ROLE_BINDINGS = new GroupVersionResource("rbac.authorization.k8s.io", "v1", "clusterrolebindings");
    private static final GroupVersionResource ROLES = new GroupVersionResource("rbac.authorization.k8s.io", "v1", "roles");
    private static final GroupVersionResource ROLE_BINDINGS = new GroupVersionResource("rbac.authorization.k8s.io", "v1", "rolebindings");

    private final Registry registry;

    Bootstrap(Registry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    /** The policy objects of the bootstrap RBAC policy, by kind. */
    record RbacPolicy(List<ObjectNode> clusterRoles, List<ObjectNode> clusterRoleBindings, List<ObjectNode> roles, List<ObjectNode> roleBindings) {
        RbacPolicy {
            clusterRoles = List.copyOf(clusterRoles);
            clusterRoleBindings = List.copyOf(clusterRoleBindings);
            roles = List.copyOf(roles);
            roleBindings = List.copyOf(roleBindings);
        }
    }

    /**
     * @param kubernetesServiceIp the first address of the service range
     * @param advertiseAddress the address clients inside the cluster reach the apiserver on
     * @param securePort the apiserver's port
     * @param clusterCaPem the cluster CA certificate, published as {@code kube-root-ca.crt}
     */
    void run(String kubernetesServiceIp, java.util.Optional<String> advertiseAddress, int securePort, String clusterCaPem, RbacPolicy policy) {
        // The namespaces first, since the objects in them may be checked against them; then everything else at once:
        // on a first start each create waits for a durable write, and concurrent writes share one commit.
        List<Step> namespaces = new ArrayList<>();
        for (String namespace : SYSTEM_NAMESPACES) {
            namespaces.add(ensureStep(NAMESPACES, "", namespace, object(meta -> meta.put("name", namespace), "Namespace", "v1")));
        }
        runConcurrently(namespaces);

        List<Step> rest = new ArrayList<>();
        // The ServiceAccount and root-CA controllers keep these in every namespace later; the system namespaces need
        // them from the first request on, so that pods and `kubectl create token` work at once.
        for (String namespace : SYSTEM_NAMESPACES) {
            rest.add(ensureStep(SERVICE_ACCOUNTS, namespace, "default",
                    object(meta -> meta.put("name", "default").put("namespace", namespace), "ServiceAccount", "v1")));
            rest.add(new Step("ensuring configmaps " + namespace + "/kube-root-ca.crt", () -> {
                ObjectNode rootCa = object(meta -> meta.put("name", "kube-root-ca.crt").put("namespace", namespace), "ConfigMap", "v1");
                rootCa.putObject("data").put("ca.crt", clusterCaPem);
                ensure(CONFIG_MAPS, namespace, "kube-root-ca.crt", rootCa);
            }));
        }
        rest.add(ensureStep(SERVICES, "default", "kubernetes", kubernetesService(kubernetesServiceIp, securePort)));
        if (advertiseAddress.isPresent()) {
            rest.add(new Step("reconciling endpoints default/kubernetes", () -> ensureEndpoints(advertiseAddress.get(), securePort)));
            rest.add(new Step("reconciling endpointslices default/kubernetes", () -> ensureEndpointSlice(advertiseAddress.get(), securePort)));
        } else {
            LOG.warn("the host has no non-loopback address: the kubernetes service has no endpoints; pass --advertise-address");
        }
        rest.add(ensureStep(PRIORITY_CLASSES, "", "system-node-critical", priorityClass("system-node-critical", 2_000_001_000L,
                "Used for system critical pods that must not be moved from their current node.")));
        rest.add(ensureStep(PRIORITY_CLASSES, "", "system-cluster-critical", priorityClass("system-cluster-critical", 2_000_000_000L,
                "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.")));
        policy.clusterRoles().forEach(role -> rest.add(ensureStep(CLUSTER_ROLES, "", name(role), role)));
        policy.clusterRoleBindings().forEach(binding -> rest.add(ensureStep(CLUSTER_ROLE_BINDINGS, "", name(binding), binding)));
        policy.roles().forEach(role -> rest.add(ensureStep(ROLES, namespace(role), name(role), role)));
        policy.roleBindings().forEach(binding -> rest.add(ensureStep(ROLE_BINDINGS, namespace(binding), name(binding), binding)));
        runConcurrently(rest);
        LOG.info("bootstrap objects in place: {} namespaces, {} cluster roles, {} cluster role bindings",
                SYSTEM_NAMESPACES.size(), policy.clusterRoles().size(), policy.clusterRoleBindings().size());
    }

    /**
     * The {@code kube-dns} service in kube-system with upstream's name, labels and ports (53/UDP {@code dns}, 53/TCP
     * {@code dns-tcp}) at {@code clusterIp}, which every pod's resolv.conf names. It has no selector: no pods serve it;
     * the built-in cluster DNS server does, where kube-proxy sends the service's traffic.
     */
    void ensureClusterDnsService(String clusterIp) {
        ObjectNode service = object(meta -> {
            meta.put("name", "kube-dns").put("namespace", "kube-system");
            meta.putObject("labels").put("k8s-app", "kube-dns").put("kubernetes.io/cluster-service", "true").put("kubernetes.io/name", "CoreDNS");
        }, "Service", "v1");
        ObjectNode spec = service.putObject("spec");
        spec.put("type", "ClusterIP");
        spec.put("clusterIP", clusterIp);
        spec.putArray("clusterIPs").add(clusterIp);
        spec.put("sessionAffinity", "None");
        ArrayNode ports = spec.putArray("ports");
        ports.addObject().put("name", "dns").put("port", 53).put("protocol", "UDP").put("targetPort", 53);
        ports.addObject().put("name", "dns-tcp").put("port", 53).put("protocol", "TCP").put("targetPort", 53);
        try {
            ensure(SERVICES, "kube-system", "kube-dns", service);
        } catch (StatusException e) {
            // A --cluster-dns the service range does not hold (or that another service took) must not stop the server.
            LOG.warn("cannot create the kube-dns service at {}: {}", clusterIp, e.getMessage());
        }
    }

    /** One bootstrap step, named for the error that stops the start when it fails. */
    private record Step(String what, Runnable action) {}

    private Step ensureStep(GroupVersionResource resource, String namespace, String name, ObjectNode object) {
        return new Step("ensuring " + resource.groupResource() + " " + (namespace.isEmpty() ? name : namespace + "/" + name),
                () -> ensure(resource, namespace, name, object));
    }

    /** Runs every step on its own virtual thread and fails with the first failure once all have finished. */
    private static void runConcurrently(List<Step> steps) {
        List<Future<?>> futures = new ArrayList<>();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            steps.forEach(step -> futures.add(executor.submit(step.action())));
        }
        for (int i = 0; i < steps.size(); i++) {
            try {
                futures.get(i).get();
            } catch (ExecutionException e) {
                // Store errors carry no stack trace: the step's name says where the start stopped.
                throw new IllegalStateException("bootstrap: " + steps.get(i).what() + " failed: " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while bootstrapping", e);
            }
        }
    }

    private void ensure(GroupVersionResource resource, String namespace, String name, ObjectNode object) {
        ObjectStore store = registry.require(resource);
        try {
            store.get(namespace, name);
        } catch (StatusException e) {
            if (e.reason() != StatusReason.NOT_FOUND) {
                throw e;
            }
            try {
                store.create(object);
                LOG.debug("created {} {}", resource.groupResource(), namespace.isEmpty() ? name : namespace + "/" + name);
            } catch (StatusException raced) {
                if (raced.reason() != StatusReason.ALREADY_EXISTS) {
                    throw raced;
                }
            }
        }
    }

    /** The endpoints of the {@code kubernetes} service follow the apiserver's address, as upstream reconciles them. */
    private void ensureEndpoints(String advertiseAddress, int securePort) {
        ObjectNode desired = object(meta -> meta.put("name", "kubernetes").put("namespace", "default")
                .putObject("labels").put("endpointslice.kubernetes.io/skip-mirror", "true"), "Endpoints", "v1");
        ObjectNode subset = desired.putArray("subsets").addObject();
        subset.putArray("addresses").addObject().put("ip", advertiseAddress);
        subset.putArray("ports").addObject().put("name", "https").put("port", securePort).put("protocol", "TCP");
        ensure(ENDPOINTS, "default", "kubernetes", desired);
        UnaryOperator<ObjectNode> reconcile = current -> {
            current.set("subsets", desired.get("subsets").deepCopy());
            return current;
        };
        ObjectNode current = registry.require(ENDPOINTS).get("default", "kubernetes");
        if (!current.path("subsets").equals(desired.get("subsets"))) {
            registry.require(ENDPOINTS).guaranteedUpdate("default", "kubernetes", "", reconcile);
        }
    }

    /**
     * The EndpointSlice of the {@code kubernetes} service, as upstream's apiserver writes it beside the Endpoints
     * (kube-proxy reads slices only): named {@code kubernetes}, labelled with the service name and no managing
     * controller, so the EndpointSlice controller leaves it alone.
     */
    private void ensureEndpointSlice(String advertiseAddress, int securePort) {
        ObjectNode desired = object(meta -> meta.put("name", "kubernetes").put("namespace", "default")
                .putObject("labels").put("kubernetes.io/service-name", "kubernetes"), "EndpointSlice", "discovery.k8s.io/v1");
        desired.put("addressType", advertiseAddress.contains(":") ? "IPv6" : "IPv4");
        ObjectNode endpoint = desired.putArray("endpoints").addObject();
        endpoint.putArray("addresses").add(advertiseAddress);
        endpoint.putObject("conditions").put("ready", true);
        desired.putArray("ports").addObject().put("name", "https").put("port", securePort).put("protocol", "TCP");
        ensure(ENDPOINT_SLICES, "default", "kubernetes", desired);
        ObjectNode current = registry.require(ENDPOINT_SLICES).get("default", "kubernetes");
        if (!current.path("endpoints").equals(desired.get("endpoints")) || !current.path("ports").equals(desired.get("ports"))) {
            // The address type is immutable: a host that moved between IPv4 and IPv6 needs a new slice.
            if (!current.path("addressType").asText().equals(desired.get("addressType").asText())) {
                registry.require(ENDPOINT_SLICES).delete("default", "kubernetes");
                ensure(ENDPOINT_SLICES, "default", "kubernetes", desired);
                return;
            }
            registry.require(ENDPOINT_SLICES).guaranteedUpdate("default", "kubernetes", "", slice -> {
                slice.set("endpoints", desired.get("endpoints").deepCopy());
                slice.set("ports", desired.get("ports").deepCopy());
                return slice;
            });
        }
    }

    private static ObjectNode kubernetesService(String clusterIp, int securePort) {
        ObjectNode service = object(meta -> {
            meta.put("name", "kubernetes").put("namespace", "default");
            meta.putObject("labels").put("component", "apiserver").put("provider", "kubernetes");
        }, "Service", "v1");
        ObjectNode spec = service.putObject("spec");
        spec.put("type", "ClusterIP");
        spec.put("clusterIP", clusterIp);
        spec.putArray("clusterIPs").add(clusterIp);
        spec.put("sessionAffinity", "None");
        ObjectNode port = spec.putArray("ports").addObject();
        port.put("name", "https").put("port", 443).put("protocol", "TCP").put("targetPort", securePort);
        return service;
    }

    private static ObjectNode priorityClass(String name, long value, String description) {
        ObjectNode priorityClass = object(meta -> meta.put("name", name), "PriorityClass", "scheduling.k8s.io/v1");
        priorityClass.put("value", value);
        priorityClass.put("description", description);
        priorityClass.put("preemptionPolicy", "PreemptLowerPriority");
        return priorityClass;
    }

    private static ObjectNode object(java.util.function.Consumer<ObjectNode> metadata, String kind, String apiVersion) {
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        object.put("apiVersion", apiVersion);
        object.put("kind", kind);
        metadata.accept(object.putObject("metadata"));
        return object;
    }

    private static String name(ObjectNode object) {
        return object.path("metadata").path("name").asText();
    }

    private static String namespace(ObjectNode object) {
        return object.path("metadata").path("namespace").asText("");
    }
}
