package io.k4j.api.schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Upstream's per-field merge and list declarations ({@code patchStrategy}, {@code patchMergeKey},
 * {@code +listType}, {@code +listMapKey}, {@code +mapType} in {@code types.go}) for the types k4j serves, as
 * of Kubernetes 1.32. The fabric8 model carries none of this, so it is kept here as data. Fields absent from
 * the table have no declaration: lists of them are replaced as a whole by strategic merge patch.
 * Immutable and thread-safe.
 */
final class PatchMetadataTable {
    private static final String CORE = "io.k8s.api.core.v1.";
    private static final String META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
    private static final String APPS = "io.k8s.api.apps.v1.";
    private static final String BATCH = "io.k8s.api.batch.v1.";
    private static final String POLICY = "io.k8s.api.policy.v1.";
    private static final String RBAC = "io.k8s.api.rbac.v1.";
    private static final String DISCOVERY = "io.k8s.api.discovery.v1.";
    private static final String STORAGE = "io.k8s.api.storage.v1.";
    private static final String AUTHENTICATION = "io.k8s.api.authentication.v1.";
    private static final String AUTHORIZATION = "io.k8s.api.authorization.v1.";

    private static final Map<String, FieldMetadata> TABLE = build();

    private PatchMetadataTable() {}

    static FieldMetadata lookup(String definition, String field) {
        return TABLE.getOrDefault(definition + "#" + field, FieldMetadata.NONE);
    }

    /** Every declared field as {@code definition#field}; for tests that check the table against the schemas. */
    static Map<String, FieldMetadata> entries() {
        return TABLE;
    }

    private static Map<String, FieldMetadata> build() {
        Map<String, FieldMetadata> table = new HashMap<>();

        put(table, META + "ObjectMeta", "finalizers", mergeSet());
        put(table, META + "ObjectMeta", "ownerReferences", mergeMap("uid"));
        put(table, META + "ObjectMeta", "managedFields", atomic());
        put(table, META + "LabelSelector", "matchExpressions", atomic());
        put(table, META + "LabelSelectorRequirement", "values", atomic());

        put(table, CORE + "PodSpec", "volumes", new FieldMetadata(List.of("merge", "retainKeys"), Optional.of("name"), Optional.of("map"), List.of("name"), Optional.empty()));
        put(table, CORE + "PodSpec", "initContainers", mergeMap("name"));
        put(table, CORE + "PodSpec", "containers", mergeMap("name"));
        put(table, CORE + "PodSpec", "ephemeralContainers", mergeMap("name"));
        put(table, CORE + "PodSpec", "imagePullSecrets", mergeMap("name"));
        put(table, CORE + "PodSpec", "hostAliases", mergeMap("ip"));
        put(table, CORE + "PodSpec", "tolerations", atomic());
        put(table, CORE + "PodSpec", "readinessGates", atomic());
        put(table, CORE + "PodSpec", "topologySpreadConstraints", mergeMap("topologyKey", "whenUnsatisfiable"));
        put(table, CORE + "PodSpec", "resourceClaims", new FieldMetadata(List.of("merge", "retainKeys"), Optional.of("name"), Optional.of("map"), List.of("name"), Optional.empty()));
        put(table, CORE + "PodSpec", "schedulingGates", mergeMap("name"));
        put(table, CORE + "PodSpec", "nodeSelector", atomicMap());
        put(table, CORE + "PodSecurityContext", "supplementalGroups", atomic());
        put(table, CORE + "PodSecurityContext", "sysctls", atomic());
        put(table, CORE + "PodDNSConfig", "nameservers", atomic());
        put(table, CORE + "PodDNSConfig", "searches", atomic());
        put(table, CORE + "PodDNSConfig", "options", atomic());
        put(table, CORE + "HostAlias", "hostnames", atomic());
        put(table, CORE + "Capabilities", "add", atomic());
        put(table, CORE + "Capabilities", "drop", atomic());
        put(table, CORE + "NodeSelector", "nodeSelectorTerms", atomic());
        put(table, CORE + "NodeSelectorTerm", "matchExpressions", atomic());
        put(table, CORE + "NodeSelectorTerm", "matchFields", atomic());
        put(table, CORE + "NodeSelectorRequirement", "values", atomic());
        put(table, CORE + "NodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution", atomic());
        put(table, CORE + "PodAffinity", "requiredDuringSchedulingIgnoredDuringExecution", atomic());
        put(table, CORE + "PodAffinity", "preferredDuringSchedulingIgnoredDuringExecution", atomic());
        put(table, CORE + "PodAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", atomic());
        put(table, CORE + "PodAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", atomic());
        put(table, CORE + "PodAffinityTerm", "namespaces", atomic());
        put(table, CORE + "PodAffinityTerm", "matchLabelKeys", atomic());
        put(table, CORE + "PodAffinityTerm", "mismatchLabelKeys", atomic());
        put(table, CORE + "TopologySpreadConstraint", "matchLabelKeys", atomic());

        for (String container : List.of("Container", "EphemeralContainer")) {
            put(table, CORE + container, "command", atomic());
            put(table, CORE + container, "args", atomic());
            put(table, CORE + container, "ports", mergeMap("containerPort", "protocol"));
            put(table, CORE + container, "envFrom", atomic());
            put(table, CORE + container, "env", mergeMap("name"));
            put(table, CORE + container, "volumeMounts", mergeMap("mountPath"));
            put(table, CORE + container, "volumeDevices", mergeMap("devicePath"));
            put(table, CORE + container, "resizePolicy", atomic());
        }
        put(table, CORE + "ResourceRequirements", "claims", map("name"));
        put(table, CORE + "ExecAction", "command", atomic());
        put(table, CORE + "HTTPGetAction", "httpHeaders", atomic());

        put(table, CORE + "PodStatus", "conditions", mergeMap("type"));
        put(table, CORE + "PodStatus", "podIPs", mergeMap("ip"));
        put(table, CORE + "PodStatus", "hostIPs", new FieldMetadata(List.of("merge"), Optional.of("ip"), Optional.of("atomic"), List.of(), Optional.empty()));
        put(table, CORE + "PodStatus", "initContainerStatuses", atomic());
        put(table, CORE + "PodStatus", "containerStatuses", atomic());
        put(table, CORE + "PodStatus", "ephemeralContainerStatuses", atomic());
        put(table, CORE + "PodStatus", "resourceClaimStatuses", new FieldMetadata(List.of("merge", "retainKeys"), Optional.of("name"), Optional.of("map"), List.of("name"), Optional.empty()));

        put(table, CORE + "NodeSpec", "podCIDRs", mergeSet());
        put(table, CORE + "NodeSpec", "taints", atomic());
        put(table, CORE + "NodeStatus", "conditions", mergeMap("type"));
        put(table, CORE + "NodeStatus", "addresses", mergeMap("type"));
        put(table, CORE + "NodeStatus", "volumesInUse", atomic());
        put(table, CORE + "NodeStatus", "volumesAttached", atomic());
        put(table, CORE + "NodeStatus", "images", atomic());

        put(table, CORE + "ServiceSpec", "ports", mergeMap("port", "protocol"));
        put(table, CORE + "ServiceSpec", "selector", atomicMap());
        put(table, CORE + "ServiceSpec", "clusterIPs", atomic());
        put(table, CORE + "ServiceSpec", "externalIPs", atomic());
        put(table, CORE + "ServiceSpec", "loadBalancerSourceRanges", atomic());
        put(table, CORE + "ServiceSpec", "ipFamilies", atomic());
        put(table, CORE + "ServiceStatus", "conditions", mergeMap("type"));
        put(table, CORE + "LoadBalancerStatus", "ingress", atomic());
        put(table, CORE + "LoadBalancerIngress", "ports", atomic());

        put(table, CORE + "NamespaceSpec", "finalizers", atomic());
        put(table, CORE + "NamespaceStatus", "conditions", mergeMap("type"));
        put(table, CORE + "PersistentVolumeClaimSpec", "accessModes", atomic());
        put(table, CORE + "PersistentVolumeClaimStatus", "accessModes", atomic());
        put(table, CORE + "PersistentVolumeClaimStatus", "conditions", mergeMap("type"));
        put(table, CORE + "PersistentVolumeSpec", "accessModes", atomic());
        put(table, CORE + "PersistentVolumeSpec", "mountOptions", atomic());
        put(table, CORE + "ReplicationControllerStatus", "conditions", mergeMap("type"));
        put(table, CORE + "ReplicationControllerSpec", "selector", atomicMap());
        put(table, CORE + "ServiceAccount", "secrets", mergeMap("name"));
        put(table, CORE + "ServiceAccount", "imagePullSecrets", atomic());
        put(table, CORE + "Endpoints", "subsets", atomic());
        put(table, CORE + "EndpointSubset", "addresses", atomic());
        put(table, CORE + "EndpointSubset", "notReadyAddresses", atomic());
        put(table, CORE + "EndpointSubset", "ports", atomic());
        put(table, CORE + "LimitRangeSpec", "limits", atomic());
        put(table, CORE + "ResourceQuotaSpec", "scopes", atomic());
        put(table, CORE + "ScopeSelector", "matchExpressions", atomic());
        put(table, CORE + "ScopedResourceSelectorRequirement", "values", atomic());
        put(table, CORE + "TopologySelectorTerm", "matchLabelExpressions", atomic());
        put(table, CORE + "TopologySelectorLabelRequirement", "values", atomic());

        put(table, APPS + "DeploymentSpec", "strategy", new FieldMetadata(List.of("retainKeys"), Optional.empty(), Optional.empty(), List.of(), Optional.empty()));
        put(table, APPS + "DeploymentStatus", "conditions", mergeMap("type"));
        put(table, APPS + "ReplicaSetStatus", "conditions", mergeMap("type"));
        put(table, APPS + "DaemonSetStatus", "conditions", mergeMap("type"));
        put(table, APPS + "StatefulSetSpec", "volumeClaimTemplates", atomic());
        put(table, APPS + "StatefulSetStatus", "conditions", mergeMap("type"));

        put(table, BATCH + "JobStatus", "conditions", new FieldMetadata(List.of("merge"), Optional.of("type"), Optional.of("atomic"), List.of(), Optional.empty()));
        put(table, BATCH + "CronJobStatus", "active", atomic());
        put(table, BATCH + "PodFailurePolicy", "rules", atomic());
        put(table, BATCH + "PodFailurePolicyRule", "onPodConditions", atomic());
        put(table, BATCH + "PodFailurePolicyOnExitCodesRequirement", "values", set());
        put(table, BATCH + "SuccessPolicy", "rules", atomic());

        put(table, POLICY + "PodDisruptionBudgetStatus", "conditions", mergeMap("type"));

        put(table, RBAC + "Role", "rules", atomic());
        put(table, RBAC + "ClusterRole", "rules", atomic());
        put(table, RBAC + "RoleBinding", "subjects", atomic());
        put(table, RBAC + "ClusterRoleBinding", "subjects", atomic());
        put(table, RBAC + "AggregationRule", "clusterRoleSelectors", atomic());
        for (String field : List.of("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")) {
            put(table, RBAC + "PolicyRule", field, atomic());
        }

        put(table, DISCOVERY + "EndpointSlice", "endpoints", atomic());
        put(table, DISCOVERY + "EndpointSlice", "ports", atomic());
        put(table, DISCOVERY + "Endpoint", "addresses", set());
        put(table, DISCOVERY + "EndpointHints", "forZones", atomic());

        put(table, STORAGE + "StorageClass", "mountOptions", atomic());
        put(table, STORAGE + "StorageClass", "allowedTopologies", atomic());

        put(table, AUTHENTICATION + "TokenReviewSpec", "audiences", atomic());
        put(table, AUTHENTICATION + "TokenReviewStatus", "audiences", atomic());
        put(table, AUTHENTICATION + "UserInfo", "groups", atomic());
        put(table, AUTHENTICATION + "TokenRequestSpec", "audiences", atomic());
        put(table, AUTHORIZATION + "SubjectAccessReviewSpec", "groups", atomic());
        put(table, AUTHORIZATION + "SubjectRulesReviewStatus", "resourceRules", atomic());
        put(table, AUTHORIZATION + "SubjectRulesReviewStatus", "nonResourceRules", atomic());
        return Map.copyOf(table);
    }

    private static void put(Map<String, FieldMetadata> table, String definition, String field, FieldMetadata metadata) {
        table.put(definition + "#" + field, metadata);
    }

    /** {@code patchStrategy=merge}, merge key = first list-map key, {@code listType=map}. */
    private static FieldMetadata mergeMap(String firstKey, String... otherKeys) {
        List<String> keys = new ArrayList<>();
        keys.add(firstKey);
        keys.addAll(List.of(otherKeys));
        return new FieldMetadata(List.of("merge"), Optional.of(firstKey), Optional.of("map"), keys, Optional.empty());
    }

    private static FieldMetadata map(String key) {
        return new FieldMetadata(List.of(), Optional.empty(), Optional.of("map"), List.of(key), Optional.empty());
    }

    /** A primitive list merged as a set by strategic merge patch ({@code finalizers}, {@code podCIDRs}). */
    private static FieldMetadata mergeSet() {
        return new FieldMetadata(List.of("merge"), Optional.empty(), Optional.of("set"), List.of(), Optional.empty());
    }

    private static FieldMetadata atomic() {
        return new FieldMetadata(List.of(), Optional.empty(), Optional.of("atomic"), List.of(), Optional.empty());
    }

    private static FieldMetadata set() {
        return new FieldMetadata(List.of(), Optional.empty(), Optional.of("set"), List.of(), Optional.empty());
    }

    private static FieldMetadata atomicMap() {
        return new FieldMetadata(List.of(), Optional.empty(), Optional.empty(), List.of(), Optional.of("atomic"));
    }
}
