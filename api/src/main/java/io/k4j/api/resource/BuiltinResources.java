package io.k4j.api.resource;

import io.fabric8.kubernetes.api.model.Binding;
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
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authorization.v1.LocalSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The catalogue of every built-in resource k4j serves, with the discovery data upstream Kubernetes 1.32
 * publishes for it (names, short names, categories, scope, verbs, subresources and the kinds of those
 * subresources), plus lookups by resource, by kind and by the names kubectl accepts.
 *
 * <p>Immutable and thread-safe: everything is built once in the static initializer.
 */
public final class BuiltinResources {
    /** The verbs of an ordinary stored resource. */
    public static final Set<String> STANDARD_VERBS = Set.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
    /** Upstream serves no {@code deletecollection} on namespaces: wiping every namespace at once is too dangerous. */
    public static final Set<String> NAMESPACE_VERBS = Set.of("create", "delete", "get", "list", "patch", "update", "watch");
    /** Resources that are never stored (bindings, the review APIs) only answer POST. */
    public static final Set<String> CREATE_ONLY_VERBS = Set.of("create");

    private static final Set<String> STATUS_VERBS = Set.of("get", "patch", "update");
    private static final Set<String> PROXY_VERBS = Set.of("create", "delete", "get", "patch", "update");
    private static final Set<String> STREAM_VERBS = Set.of("create", "get");

    private static final String CORE = "";
    private static final String APPS = "apps";
    private static final String BATCH = "batch";
    private static final String COORDINATION = "coordination.k8s.io";
    private static final String DISCOVERY = "discovery.k8s.io";
    private static final String EVENTS = "events.k8s.io";
    private static final String RBAC = "rbac.authorization.k8s.io";
    private static final String POLICY = "policy";
    private static final String SCHEDULING = "scheduling.k8s.io";
    private static final String STORAGE = "storage.k8s.io";
    private static final String AUTHENTICATION = "authentication.k8s.io";
    private static final String AUTHORIZATION = "authorization.k8s.io";

    /** Named groups in the order upstream's {@code /apis} lists them (the aggregator's group priorities). */
    private static final List<ApiGroupVersions> GROUPS = List.of(
            new ApiGroupVersions(APPS, List.of("v1")),
            new ApiGroupVersions(EVENTS, List.of("v1")),
            new ApiGroupVersions(AUTHENTICATION, List.of("v1")),
            new ApiGroupVersions(AUTHORIZATION, List.of("v1")),
            new ApiGroupVersions(BATCH, List.of("v1")),
            new ApiGroupVersions(POLICY, List.of("v1")),
            new ApiGroupVersions(RBAC, List.of("v1")),
            new ApiGroupVersions(STORAGE, List.of("v1")),
            new ApiGroupVersions(SCHEDULING, List.of("v1")),
            new ApiGroupVersions(COORDINATION, List.of("v1")),
            new ApiGroupVersions(DISCOVERY, List.of("v1")));

    private static final List<ResourceType> ALL;
    private static final Map<String, List<SubresourceType>> SUBRESOURCES;

    static {
        Catalogue catalogue = new Catalogue();
        // core/v1, in upstream's discovery order (alphabetical by plural)
        catalogue.add(CORE, "Binding", "bindings", "binding", List.of(), List.of(), true, CREATE_ONLY_VERBS, Binding.class);
        catalogue.add(CORE, "ConfigMap", "configmaps", "configmap", List.of("cm"), List.of(), true, STANDARD_VERBS, ConfigMap.class);
        catalogue.add(CORE, "Endpoints", "endpoints", "endpoints", List.of("ep"), List.of(), true, STANDARD_VERBS, Endpoints.class);
        catalogue.add(CORE, "Event", "events", "event", List.of("ev"), List.of(), true, STANDARD_VERBS, Event.class);
        catalogue.add(CORE, "LimitRange", "limitranges", "limitrange", List.of("limits"), List.of(), true, STANDARD_VERBS, LimitRange.class);
        catalogue.add(CORE, "Namespace", "namespaces", "namespace", List.of("ns"), List.of(), false, NAMESPACE_VERBS, Namespace.class)
                .subresource("finalize", "Namespace", Set.of("update"))
                .status();
        catalogue.add(CORE, "Node", "nodes", "node", List.of("no"), List.of(), false, STANDARD_VERBS, Node.class)
                .subresource("proxy", "NodeProxyOptions", PROXY_VERBS)
                .status();
        catalogue.add(CORE, "PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", List.of("pvc"), List.of(), true, STANDARD_VERBS, PersistentVolumeClaim.class)
                .status();
        catalogue.add(CORE, "PersistentVolume", "persistentvolumes", "persistentvolume", List.of("pv"), List.of(), false, STANDARD_VERBS, PersistentVolume.class)
                .status();
        catalogue.add(CORE, "Pod", "pods", "pod", List.of("po"), List.of("all"), true, STANDARD_VERBS, Pod.class)
                .subresource("attach", "PodAttachOptions", STREAM_VERBS)
                .subresource("binding", "Binding", CREATE_ONLY_VERBS)
                .subresource("ephemeralcontainers", "Pod", STATUS_VERBS)
                .subresource("eviction", new GroupVersionKind(POLICY, "v1", "Eviction"), CREATE_ONLY_VERBS)
                .subresource("exec", "PodExecOptions", STREAM_VERBS)
                .subresource("log", "Pod", Set.of("get"))
                .subresource("portforward", "PodPortForwardOptions", STREAM_VERBS)
                .subresource("proxy", "PodProxyOptions", PROXY_VERBS)
                .status();
        catalogue.add(CORE, "PodTemplate", "podtemplates", "podtemplate", List.of(), List.of(), true, STANDARD_VERBS, PodTemplate.class);
        catalogue.add(CORE, "ReplicationController", "replicationcontrollers", "replicationcontroller", List.of("rc"), List.of("all"), true, STANDARD_VERBS, ReplicationController.class)
                .scale()
                .status();
        catalogue.add(CORE, "ResourceQuota", "resourcequotas", "resourcequota", List.of("quota"), List.of(), true, STANDARD_VERBS, ResourceQuota.class)
                .status();
        catalogue.add(CORE, "Secret", "secrets", "secret", List.of(), List.of(), true, STANDARD_VERBS, Secret.class);
        catalogue.add(CORE, "ServiceAccount", "serviceaccounts", "serviceaccount", List.of("sa"), List.of(), true, STANDARD_VERBS, ServiceAccount.class)
                .subresource("token", new GroupVersionKind(AUTHENTICATION, "v1", "TokenRequest"), CREATE_ONLY_VERBS);
        catalogue.add(CORE, "Service", "services", "service", List.of("svc"), List.of("all"), true, STANDARD_VERBS, Service.class)
                .subresource("proxy", "ServiceProxyOptions", PROXY_VERBS)
                .status();

        catalogue.add(APPS, "ControllerRevision", "controllerrevisions", "controllerrevision", List.of(), List.of(), true, STANDARD_VERBS, ControllerRevision.class);
        catalogue.add(APPS, "DaemonSet", "daemonsets", "daemonset", List.of("ds"), List.of("all"), true, STANDARD_VERBS, DaemonSet.class)
                .status();
        catalogue.add(APPS, "Deployment", "deployments", "deployment", List.of("deploy"), List.of("all"), true, STANDARD_VERBS, Deployment.class)
                .scale()
                .status();
        catalogue.add(APPS, "ReplicaSet", "replicasets", "replicaset", List.of("rs"), List.of("all"), true, STANDARD_VERBS, ReplicaSet.class)
                .scale()
                .status();
        catalogue.add(APPS, "StatefulSet", "statefulsets", "statefulset", List.of("sts"), List.of("all"), true, STANDARD_VERBS, StatefulSet.class)
                .scale()
                .status();

        catalogue.add(EVENTS, "Event", "events", "event", List.of("ev"), List.of(), true, STANDARD_VERBS, io.fabric8.kubernetes.api.model.events.v1.Event.class);

        catalogue.add(AUTHENTICATION, "SelfSubjectReview", "selfsubjectreviews", "selfsubjectreview", List.of(), List.of(), false, CREATE_ONLY_VERBS, SelfSubjectReview.class);
        catalogue.add(AUTHENTICATION, "TokenReview", "tokenreviews", "tokenreview", List.of(), List.of(), false, CREATE_ONLY_VERBS, TokenReview.class);

        catalogue.add(AUTHORIZATION, "LocalSubjectAccessReview", "localsubjectaccessreviews", "localsubjectaccessreview", List.of(), List.of(), true, CREATE_ONLY_VERBS, LocalSubjectAccessReview.class);
        catalogue.add(AUTHORIZATION, "SelfSubjectAccessReview", "selfsubjectaccessreviews", "selfsubjectaccessreview", List.of(), List.of(), false, CREATE_ONLY_VERBS, SelfSubjectAccessReview.class);
        catalogue.add(AUTHORIZATION, "SelfSubjectRulesReview", "selfsubjectrulesreviews", "selfsubjectrulesreview", List.of(), List.of(), false, CREATE_ONLY_VERBS, SelfSubjectRulesReview.class);
        catalogue.add(AUTHORIZATION, "SubjectAccessReview", "subjectaccessreviews", "subjectaccessreview", List.of(), List.of(), false, CREATE_ONLY_VERBS, SubjectAccessReview.class);

        catalogue.add(BATCH, "CronJob", "cronjobs", "cronjob", List.of("cj"), List.of("all"), true, STANDARD_VERBS, CronJob.class)
                .status();
        catalogue.add(BATCH, "Job", "jobs", "job", List.of(), List.of("all"), true, STANDARD_VERBS, Job.class)
                .status();

        catalogue.add(POLICY, "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", List.of("pdb"), List.of(), true, STANDARD_VERBS, PodDisruptionBudget.class)
                .status();

        catalogue.add(RBAC, "ClusterRoleBinding", "clusterrolebindings", "clusterrolebinding", List.of(), List.of(), false, STANDARD_VERBS, ClusterRoleBinding.class);
        catalogue.add(RBAC, "ClusterRole", "clusterroles", "clusterrole", List.of(), List.of(), false, STANDARD_VERBS, ClusterRole.class);
        catalogue.add(RBAC, "RoleBinding", "rolebindings", "rolebinding", List.of(), List.of(), true, STANDARD_VERBS, RoleBinding.class);
        catalogue.add(RBAC, "Role", "roles", "role", List.of(), List.of(), true, STANDARD_VERBS, Role.class);

        catalogue.add(STORAGE, "StorageClass", "storageclasses", "storageclass", List.of("sc"), List.of(), false, STANDARD_VERBS, StorageClass.class);

        catalogue.add(SCHEDULING, "PriorityClass", "priorityclasses", "priorityclass", List.of("pc"), List.of(), false, STANDARD_VERBS, PriorityClass.class);

        catalogue.add(COORDINATION, "Lease", "leases", "lease", List.of(), List.of(), true, STANDARD_VERBS, Lease.class);

        catalogue.add(DISCOVERY, "EndpointSlice", "endpointslices", "endpointslice", List.of(), List.of(), true, STANDARD_VERBS, EndpointSlice.class);

        ALL = catalogue.types();
        SUBRESOURCES = catalogue.subresources();
    }

    private BuiltinResources() {}

    /** Every served resource: core/v1 first, then the named groups in {@link #groups()} order. */
    public static List<ResourceType> all() {
        return ALL;
    }

    /** The named API groups ({@code /apis}) in upstream's order, each with its versions, preferred first. */
    public static List<ApiGroupVersions> groups() {
        return GROUPS;
    }

    /** The versions of the core group ({@code /api}). */
    public static List<String> coreVersions() {
        return List.of("v1");
    }

    /** The resources of one group version, in discovery order; empty when the group version is not served. */
    public static List<ResourceType> resources(String group, String version) {
        return ALL.stream()
                .filter(type -> type.gvk().group().equals(group) && type.gvk().version().equals(version))
                .toList();
    }

    public static Optional<ResourceType> byResource(GroupVersionResource resource) {
        return ALL.stream().filter(type -> type.gvr().equals(resource)).findFirst();
    }

    public static Optional<ResourceType> byKind(GroupVersionKind kind) {
        return ALL.stream().filter(type -> type.gvk().equals(kind)).findFirst();
    }

    /**
     * The resources a name given to kubectl can mean: a plural, singular or short name, or a kind
     * (case-insensitive), optionally qualified by a group ({@code deployments.apps}, {@code ev.events.k8s.io}).
     * Core resources come first, then the groups in {@link #groups()} order, so the first match is what
     * kubectl would pick.
     */
    public static List<ResourceType> byName(String name) {
        String lowered = name.toLowerCase(Locale.ROOT);
        List<ResourceType> matches = new ArrayList<>();
        for (ResourceType type : ALL) {
            if (matchesName(type, lowered)) {
                matches.add(type);
                continue;
            }
            String groupSuffix = type.gvk().group().isEmpty() ? null : "." + type.gvk().group();
            if (groupSuffix != null && lowered.endsWith(groupSuffix)
                    && matchesName(type, lowered.substring(0, lowered.length() - groupSuffix.length()))) {
                matches.add(type);
            }
        }
        return List.copyOf(matches);
    }

    private static boolean matchesName(ResourceType type, String lowered) {
        return type.plural().equals(lowered)
                || type.singular().equals(lowered)
                || type.shortNames().contains(lowered)
                || type.kind().toLowerCase(Locale.ROOT).equals(lowered);
    }

    /** The subresources discovery lists for a resource, ordered by name. */
    public static List<SubresourceType> subresources(GroupVersionResource resource) {
        return SUBRESOURCES.getOrDefault(key(resource), List.of());
    }

    public static Optional<SubresourceType> subresource(GroupVersionResource resource, String name) {
        return subresources(resource).stream().filter(subresource -> subresource.name().equals(name)).findFirst();
    }

    /**
     * The resource whose storage holds the objects of {@code type}. Upstream stores events.k8s.io/v1 events
     * as core/v1 events (one etcd prefix, {@code /registry/events}); every other resource owns its storage.
     */
    public static GroupVersionResource storageResource(ResourceType type) {
        if (type.gvk().group().equals(EVENTS) && type.plural().equals("events")) {
            return new GroupVersionResource(CORE, "v1", "events");
        }
        return type.gvr();
    }

    /** Whether two served resources are views of the same stored objects (a write through one shows in the other). */
    public static boolean sharesStorage(ResourceType first, ResourceType second) {
        return storageResource(first).equals(storageResource(second));
    }

    /**
     * The {@code storageVersionHash} discovery publishes: the first 8 bytes of the SHA-256 of
     * {@code group/version/kind} of the stored form, base64-encoded; empty for resources that are never stored.
     */
    public static Optional<String> storageVersionHash(ResourceType type) {
        if (isCreateOnly(type)) {
            return Optional.empty();
        }
        GroupVersionResource storage = storageResource(type);
        ResourceType stored = byResource(storage).orElseThrow();
        String groupVersionKind = stored.gvk().group() + "/" + stored.gvk().version() + "/" + stored.kind();
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(groupVersionKind.getBytes(StandardCharsets.UTF_8));
            return Optional.of(Base64.getEncoder().encodeToString(Arrays.copyOf(digest, 8)));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("SHA-256 is part of every JDK", impossible);
        }
    }

    /** Whether the resource is only ever created and never stored (bindings and the review APIs). */
    public static boolean isCreateOnly(ResourceType type) {
        return type.verbs().equals(CREATE_ONLY_VERBS);
    }

    private static String key(GroupVersionResource resource) {
        return resource.group() + "/" + resource.version() + "/" + resource.resource();
    }

    /** Collects the catalogue while the static initializer runs; never escapes it. */
    private static final class Catalogue {
        private final List<ResourceType> types = new ArrayList<>();
        private final Map<String, List<SubresourceType>> subresources = new LinkedHashMap<>();

        Entry add(String group, String kind, String plural, String singular, List<String> shortNames, List<String> categories,
                boolean namespaced, Set<String> verbs, Class<?> modelClass) {
            return new Entry(this, new GroupVersionKind(group, "v1", kind), plural, singular, shortNames, categories, namespaced, verbs, modelClass);
        }

        List<ResourceType> types() {
            return List.copyOf(types);
        }

        Map<String, List<SubresourceType>> subresources() {
            Map<String, List<SubresourceType>> copy = new LinkedHashMap<>();
            subresources.forEach((key, list) -> copy.put(key, List.copyOf(list)));
            return Map.copyOf(copy);
        }
    }

    /** One resource under construction; the resource is (re)registered each time a subresource is added. */
    private static final class Entry {
        private final Catalogue catalogue;
        private final GroupVersionKind gvk;
        private final String plural;
        private final String singular;
        private final List<String> shortNames;
        private final List<String> categories;
        private final boolean namespaced;
        private final Set<String> verbs;
        private final Class<?> modelClass;
        private final List<SubresourceType> subresources = new ArrayList<>();
        private final int index;

        Entry(Catalogue catalogue, GroupVersionKind gvk, String plural, String singular, List<String> shortNames, List<String> categories,
                boolean namespaced, Set<String> verbs, Class<?> modelClass) {
            this.catalogue = catalogue;
            this.gvk = gvk;
            this.plural = plural;
            this.singular = singular;
            this.shortNames = shortNames;
            this.categories = categories;
            this.namespaced = namespaced;
            this.verbs = verbs;
            this.modelClass = modelClass;
            this.index = catalogue.types.size();
            catalogue.types.add(build());
        }

        Entry subresource(String name, String kind, Set<String> subresourceVerbs) {
            return subresource(name, new GroupVersionKind(gvk.group(), gvk.version(), kind), subresourceVerbs);
        }

        Entry subresource(String name, GroupVersionKind kind, Set<String> subresourceVerbs) {
            GroupVersionResource parent = new GroupVersionResource(gvk.group(), gvk.version(), plural);
            subresources.add(new SubresourceType(parent, name, kind, subresourceVerbs));
            catalogue.types.set(index, build());
            catalogue.subresources.put(key(parent), subresources);
            return this;
        }

        Entry status() {
            return subresource("status", gvk.kind(), STATUS_VERBS);
        }

        Entry scale() {
            return subresource("scale", new GroupVersionKind("autoscaling", "v1", "Scale"), STATUS_VERBS);
        }

        private ResourceType build() {
            Set<String> names = new TreeSet<>();
            subresources.forEach(subresource -> names.add(subresource.name()));
            return new ResourceType(gvk, plural, singular, shortNames, categories, namespaced, verbs, names, modelClass);
        }
    }
}
