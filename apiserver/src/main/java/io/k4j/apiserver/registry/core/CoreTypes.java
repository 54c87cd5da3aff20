package io.k4j.apiserver.registry.core;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplate;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import java.util.List;
import java.util.Set;

/**
 * The core/v1 resources this package serves, as discovery lists them. Thread-safe (constants).
 */
public final class CoreTypes {
    private static final Set<String> ALL_VERBS = Set.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    public static final ResourceType NAMESPACES = new ResourceType(core("Namespace"), "namespaces", "namespace", List.of("ns"), List.of(), false,
            Set.of("create", "delete", "get", "list", "patch", "update", "watch"), Set.of("status", "finalize"), Namespace.class);
    public static final ResourceType PODS = new ResourceType(core("Pod"), "pods", "pod", List.of("po"), List.of("all"), true,
            ALL_VERBS, Set.of("status", "binding", "eviction", "log", "exec", "attach", "portforward", "proxy", "ephemeralcontainers", "resize"), Pod.class);
    public static final ResourceType NODES = new ResourceType(core("Node"), "nodes", "node", List.of("no"), List.of(), false,
            ALL_VERBS, Set.of("status", "proxy"), Node.class);
    public static final ResourceType SERVICES = new ResourceType(core("Service"), "services", "service", List.of("svc"), List.of("all"), true,
            Set.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"), Set.of("status", "proxy"), Service.class);
    public static final ResourceType ENDPOINTS = new ResourceType(core("Endpoints"), "endpoints", "endpoints", List.of("ep"), List.of(), true,
            ALL_VERBS, Set.of(), Endpoints.class);
    public static final ResourceType CONFIG_MAPS = new ResourceType(core("ConfigMap"), "configmaps", "configmap", List.of("cm"), List.of(), true,
            ALL_VERBS, Set.of(), ConfigMap.class);
    public static final ResourceType SECRETS = new ResourceType(core("Secret"), "secrets", "secret", List.of(), List.of(), true,
            ALL_VERBS, Set.of(), Secret.class);
    public static final ResourceType SERVICE_ACCOUNTS = new ResourceType(core("ServiceAccount"), "serviceaccounts", "serviceaccount", List.of("sa"), List.of(), true,
            ALL_VERBS, Set.of("token"), ServiceAccount.class);
    public static final ResourceType EVENTS = new ResourceType(core("Event"), "events", "event", List.of("ev"), List.of(), true,
            ALL_VERBS, Set.of(), Event.class);
    public static final ResourceType LIMIT_RANGES = new ResourceType(core("LimitRange"), "limitranges", "limitrange", List.of("limits"), List.of(), true,
            ALL_VERBS, Set.of(), LimitRange.class);
    public static final ResourceType RESOURCE_QUOTAS = new ResourceType(core("ResourceQuota"), "resourcequotas", "resourcequota", List.of("quota"), List.of(), true,
            ALL_VERBS, Set.of("status"), ResourceQuota.class);
    public static final ResourceType REPLICATION_CONTROLLERS = new ResourceType(core("ReplicationController"), "replicationcontrollers", "replicationcontroller", List.of("rc"),
            List.of("all"), true, ALL_VERBS, Set.of("status", "scale"), ReplicationController.class);
    public static final ResourceType PERSISTENT_VOLUMES = new ResourceType(core("PersistentVolume"), "persistentvolumes", "persistentvolume", List.of("pv"), List.of(), false,
            ALL_VERBS, Set.of("status"), PersistentVolume.class);
    public static final ResourceType PERSISTENT_VOLUME_CLAIMS = new ResourceType(core("PersistentVolumeClaim"), "persistentvolumeclaims", "persistentvolumeclaim",
            List.of("pvc"), List.of(), true, ALL_VERBS, Set.of("status"), PersistentVolumeClaim.class);
    public static final ResourceType POD_TEMPLATES = new ResourceType(core("PodTemplate"), "podtemplates", "podtemplate", List.of(), List.of(), true,
            ALL_VERBS, Set.of(), PodTemplate.class);
    /** Read by the eviction subresource; served by the policy group's strategies. */
    public static final ResourceType POD_DISRUPTION_BUDGETS = new ResourceType(new GroupVersionKind("policy", "v1", "PodDisruptionBudget"), "poddisruptionbudgets",
            "poddisruptionbudget", List.of("pdb"), List.of(), true, ALL_VERBS, Set.of("status"), PodDisruptionBudget.class);

    private CoreTypes() {}

    private static GroupVersionKind core(String kind) {
        return new GroupVersionKind("", "v1", kind);
    }
}
