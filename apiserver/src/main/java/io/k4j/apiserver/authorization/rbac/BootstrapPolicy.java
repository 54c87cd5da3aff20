package io.k4j.apiserver.authorization.rbac;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The default RBAC objects upstream creates at startup ({@code bootstrappolicy}): the user-facing roles
 * (cluster-admin, and admin/edit/view built by aggregation from the {@code system:aggregate-to-*} roles), the
 * roles of the control-plane components, nodes and discovery, the {@code system:controller:*} roles of the
 * controllers k4j runs (bound to service accounts in kube-system, for controllers using their own credentials),
 * and the bindings to the well-known users and groups. Every object carries the label
 * {@code kubernetes.io/bootstrapping: rbac-defaults} and the annotation
 * {@code rbac.authorization.kubernetes.io/autoupdate: "true"}. The launcher creates the ones that are missing.
 * Stateless and thread-safe; every call returns fresh objects.
 */
public final class BootstrapPolicy {
    public static final String BOOTSTRAPPING_LABEL = "kubernetes.io/bootstrapping";
    public static final String BOOTSTRAPPING_VALUE = "rbac-defaults";
    public static final String AUTOUPDATE_ANNOTATION = "rbac.authorization.kubernetes.io/autoupdate";
    public static final String AGGREGATE_TO_ADMIN = "rbac.authorization.k8s.io/aggregate-to-admin";
    public static final String AGGREGATE_TO_EDIT = "rbac.authorization.k8s.io/aggregate-to-edit";
    public static final String AGGREGATE_TO_VIEW = "rbac.authorization.k8s.io/aggregate-to-view";

    private static final String API_VERSION = "rbac.authorization.k8s.io/v1";
    private static final String CORE = "";
    private static final String APPS = "apps";
    private static final String AUTHENTICATION = "authentication.k8s.io";
    private static final String AUTHORIZATION = "authorization.k8s.io";
    private static final String AUTOSCALING = "autoscaling";
    private static final String BATCH = "batch";
    private static final String CERTIFICATES = "certificates.k8s.io";
    private static final String COORDINATION = "coordination.k8s.io";
    private static final String DISCOVERY = "discovery.k8s.io";
    private static final String EVENTS = "events.k8s.io";
    private static final String EXTENSIONS = "extensions";
    private static final String NETWORKING = "networking.k8s.io";
    private static final String NODE = "node.k8s.io";
    private static final String POLICY = "policy";
    private static final String RBAC = "rbac.authorization.k8s.io";
    private static final String STORAGE = "storage.k8s.io";

    private static final String[] READ = {"get", "list", "watch"};
    private static final String[] READ_WRITE = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};
    private static final String[] WRITE = {"create", "delete", "deletecollection", "patch", "update"};

    /**
     * The one identity of k4j's simulated (KWOK-like) nodes. It is not a {@code system:node:<name>} user, so the Node
     * authorizer and NodeRestriction admission leave it alone; RBAC gives it {@link #NODE_SIMULATOR_ROLE}.
     */
    public static final String NODE_SIMULATOR_USER = "system:k4j:node-simulator";
    /** The ClusterRole (nodes, pods) and the Role in {@code kube-node-lease} (leases) of {@link #NODE_SIMULATOR_USER}. */
    public static final String NODE_SIMULATOR_ROLE = "system:k4j:node-simulator";

    /** The controllers whose {@code system:controller:<name>} roles are provided. */
    public static final List<String> CONTROLLERS = List.of(
            "clusterrole-aggregation-controller", "cronjob-controller", "daemon-set-controller", "deployment-controller",
            "disruption-controller", "endpoint-controller", "endpointslice-controller", "endpointslicemirroring-controller",
            "ephemeral-volume-controller", "generic-garbage-collector", "horizontal-pod-autoscaler", "job-controller",
            "namespace-controller", "node-controller", "persistent-volume-binder", "pod-garbage-collector",
            "pv-protection-controller", "pvc-protection-controller", "replicaset-controller", "replication-controller",
            "resourcequota-controller", "root-ca-cert-publisher", "service-account-controller", "service-controller",
            "statefulset-controller", "ttl-after-finished-controller", "ttl-controller");

    private BootstrapPolicy() {}

    /** All default ClusterRoles, user-facing and controller roles. */
    public static List<ObjectNode> clusterRoles() {
        List<ObjectNode> roles = new ArrayList<>();
        roles.add(clusterRole("cluster-admin", Map.of(),
                rule("*").groups("*").resources("*"),
                rule("*").urls("*")));
        roles.add(aggregatedRole("admin", Map.of(), AGGREGATE_TO_ADMIN));
        roles.add(aggregatedRole("edit", Map.of(AGGREGATE_TO_ADMIN, "true"), AGGREGATE_TO_EDIT));
        roles.add(aggregatedRole("view", Map.of(AGGREGATE_TO_EDIT, "true"), AGGREGATE_TO_VIEW));
        roles.add(clusterRole("system:aggregate-to-admin", Map.of(AGGREGATE_TO_ADMIN, "true"),
                rule("create").groups(AUTHORIZATION).resources("localsubjectaccessreviews"),
                rule(READ_WRITE).groups(RBAC).resources("rolebindings", "roles")));
        roles.add(clusterRole("system:aggregate-to-edit", Map.of(AGGREGATE_TO_EDIT, "true"),
                rule(READ).groups(CORE).resources("pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"),
                rule("impersonate").groups(CORE).resources("serviceaccounts"),
                rule(WRITE).groups(CORE).resources("pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"),
                rule("create").groups(CORE).resources("pods/eviction"),
                rule(WRITE).groups(CORE).resources("configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                        "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"),
                rule("create").groups(CORE).resources("serviceaccounts/token"),
                rule(WRITE).groups(APPS).resources("daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets",
                        "replicasets/scale", "statefulsets", "statefulsets/scale"),
                rule(WRITE).groups(AUTOSCALING).resources("horizontalpodautoscalers"),
                rule(WRITE).groups(BATCH).resources("cronjobs", "jobs"),
                rule(WRITE).groups(EXTENSIONS).resources("daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses",
                        "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"),
                rule(WRITE).groups(POLICY).resources("poddisruptionbudgets"),
                rule(WRITE).groups(NETWORKING).resources("ingresses", "networkpolicies"),
                rule(READ_WRITE).groups(COORDINATION).resources("leases")));
        roles.add(clusterRole("system:aggregate-to-view", Map.of(AGGREGATE_TO_VIEW, "true"),
                rule(READ).groups(CORE).resources("configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
                        "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status"),
                rule(READ).groups(CORE).resources("bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
                        "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"),
                rule(READ).groups(CORE).resources("namespaces"),
                rule(READ).groups(DISCOVERY).resources("endpointslices"),
                rule(READ).groups(APPS).resources("controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                        "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets", "statefulsets/scale",
                        "statefulsets/status"),
                rule(READ).groups(AUTOSCALING).resources("horizontalpodautoscalers", "horizontalpodautoscalers/status"),
                rule(READ).groups(BATCH).resources("cronjobs", "cronjobs/status", "jobs", "jobs/status"),
                rule(READ).groups(EXTENSIONS).resources("daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
                        "ingresses", "ingresses/status", "networkpolicies", "replicasets", "replicasets/scale", "replicasets/status",
                        "replicationcontrollers/scale"),
                rule(READ).groups(POLICY).resources("poddisruptionbudgets", "poddisruptionbudgets/status"),
                rule(READ).groups(NETWORKING).resources("ingresses", "ingresses/status", "networkpolicies")));
        roles.add(clusterRole("system:auth-delegator", Map.of(),
                rule("create").groups(AUTHENTICATION).resources("tokenreviews"),
                rule("create").groups(AUTHORIZATION).resources("subjectaccessreviews")));
        roles.add(clusterRole("system:basic-user", Map.of(),
                rule("create").groups(AUTHORIZATION).resources("selfsubjectaccessreviews", "selfsubjectrulesreviews"),
                rule("create").groups(AUTHENTICATION).resources("selfsubjectreviews")));
        roles.add(clusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient", Map.of(),
                rule("create").groups(CERTIFICATES).resources("certificatesigningrequests/nodeclient")));
        roles.add(clusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", Map.of(),
                rule("create").groups(CERTIFICATES).resources("certificatesigningrequests/selfnodeclient")));
        for (String signer : List.of("kube-apiserver-client", "kube-apiserver-client-kubelet", "kubelet-serving", "legacy-unknown")) {
            roles.add(clusterRole("system:certificates.k8s.io:" + signer + "-approver", Map.of(),
                    rule("approve").groups(CERTIFICATES).resources("signers").names("kubernetes.io/" + signer)));
        }
        roles.add(clusterRole("system:discovery", Map.of(),
                rule("get").urls("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/")));
        roles.add(clusterRole("system:kube-aggregator", Map.of(),
                rule(READ).groups(CORE).resources("endpoints", "services")));
        roles.add(clusterRole("system:kube-controller-manager", Map.of(),
                eventsRule(),
                rule("create").groups(COORDINATION).resources("leases"),
                rule("get", "update").groups(COORDINATION).resources("leases").names("kube-controller-manager"),
                rule("create").groups(CORE).resources("secrets", "serviceaccounts"),
                rule("delete").groups(CORE).resources("secrets"),
                rule("get").groups(CORE).resources("configmaps", "namespaces", "secrets", "serviceaccounts"),
                rule("update").groups(CORE).resources("secrets", "serviceaccounts"),
                rule("create").groups(AUTHENTICATION).resources("tokenreviews"),
                rule("create").groups(AUTHORIZATION).resources("subjectaccessreviews"),
                rule("list", "watch").groups("*").resources("*"),
                rule("create").groups(CORE).resources("serviceaccounts/token")));
        // Not in upstream's apiserver bootstrap policy but in its CoreDNS addon manifests (kubeadm), which k4j's
        // built-in cluster DNS stands in for.
        roles.add(clusterRole("system:coredns", Map.of(),
                rule("list", "watch").groups(CORE).resources("endpoints", "services", "pods", "namespaces"),
                rule("list", "watch").groups(DISCOVERY).resources("endpointslices")));
        roles.add(clusterRole("system:kube-dns", Map.of(),
                rule("list", "watch").groups(CORE).resources("endpoints", "services"),
                rule("list", "watch").groups(DISCOVERY).resources("endpointslices")));
        roles.add(clusterRole("system:kube-scheduler", Map.of(),
                eventsRule(),
                rule("create").groups(COORDINATION).resources("leases"),
                rule("get", "update").groups(COORDINATION).resources("leases").names("kube-scheduler"),
                rule(READ).groups(CORE).resources("nodes"),
                rule("delete", "get", "list", "watch").groups(CORE).resources("pods"),
                rule("create").groups(CORE).resources("bindings", "pods/binding"),
                rule("patch", "update").groups(CORE).resources("pods/status"),
                rule(READ).groups(CORE).resources("replicationcontrollers", "services"),
                rule(READ).groups(APPS, EXTENSIONS).resources("replicasets"),
                rule(READ).groups(APPS).resources("statefulsets"),
                rule(READ).groups(POLICY).resources("poddisruptionbudgets"),
                rule(READ).groups(CORE).resources("persistentvolumeclaims", "persistentvolumes"),
                rule("create").groups(AUTHENTICATION).resources("tokenreviews"),
                rule("create").groups(AUTHORIZATION).resources("subjectaccessreviews"),
                rule(READ).groups(STORAGE).resources("csinodes"),
                rule(READ).groups(CORE).resources("namespaces"),
                rule(READ).groups(STORAGE).resources("csidrivers"),
                rule(READ).groups(STORAGE).resources("csistoragecapacities")));
        roles.add(clusterRole("system:kubelet-api-admin", Map.of(),
                rule(READ).groups(CORE).resources("nodes"),
                rule("proxy").groups(CORE).resources("nodes"),
                rule("*").groups(CORE).resources("nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats")));
        roles.add(clusterRole("system:monitoring", Map.of(),
                rule("get").urls("/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*")));
        roles.add(clusterRole("system:node", Map.of(), nodeRules().toArray(RuleBuilder[]::new)));
        roles.add(clusterRole(NODE_SIMULATOR_ROLE, Map.of(),
                rule("create", "get", "list", "watch").groups(CORE).resources("nodes"),
                rule("patch", "update").groups(CORE).resources("nodes/status"),
                rule("delete", "get", "list", "watch").groups(CORE).resources("pods"),
                rule("patch", "update").groups(CORE).resources("pods/status")));
        roles.add(clusterRole("system:node-bootstrapper", Map.of(),
                rule("create", "get", "list", "watch").groups(CERTIFICATES).resources("certificatesigningrequests")));
        roles.add(clusterRole("system:node-problem-detector", Map.of(),
                rule("get").groups(CORE).resources("nodes"),
                rule("patch").groups(CORE).resources("nodes/status"),
                eventsRule()));
        roles.add(clusterRole("system:node-proxier", Map.of(),
                rule("list", "watch").groups(CORE).resources("endpoints", "services"),
                rule(READ).groups(CORE).resources("nodes"),
                eventsRule(),
                rule("list", "watch").groups(DISCOVERY).resources("endpointslices")));
        roles.add(clusterRole("system:persistent-volume-provisioner", Map.of(),
                rule("create", "delete", "get", "list", "watch").groups(CORE).resources("persistentvolumes"),
                rule("get", "list", "update", "watch").groups(CORE).resources("persistentvolumeclaims"),
                rule(READ).groups(STORAGE).resources("storageclasses"),
                rule("watch").groups(CORE).resources("events"),
                eventsRule()));
        roles.add(clusterRole("system:public-info-viewer", Map.of(),
                rule("get").urls("/healthz", "/livez", "/readyz", "/version", "/version/")));
        roles.add(clusterRole("system:service-account-issuer-discovery", Map.of(),
                rule("get").urls("/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/")));
        roles.add(clusterRole("system:volume-scheduler", Map.of(),
                rule("get", "list", "patch", "update", "watch").groups(CORE).resources("persistentvolumes"),
                rule(READ).groups(STORAGE).resources("storageclasses"),
                rule("get", "list", "patch", "update", "watch").groups(CORE).resources("persistentvolumeclaims")));
        roles.addAll(controllerRoles());
        return roles;
    }

    /** All default ClusterRoleBindings. */
    public static List<ObjectNode> clusterRoleBindings() {
        List<ObjectNode> bindings = new ArrayList<>();
        bindings.add(clusterRoleBinding("cluster-admin", "cluster-admin", group("system:masters")));
        bindings.add(clusterRoleBinding("system:basic-user", "system:basic-user", group("system:authenticated")));
        bindings.add(clusterRoleBinding("system:discovery", "system:discovery", group("system:authenticated")));
        bindings.add(clusterRoleBinding("system:kube-controller-manager", "system:kube-controller-manager", user("system:kube-controller-manager")));
        bindings.add(clusterRoleBinding("system:coredns", "system:coredns", serviceAccount("kube-system", "coredns")));
        bindings.add(clusterRoleBinding("system:kube-dns", "system:kube-dns", serviceAccount("kube-system", "kube-dns")));
        bindings.add(clusterRoleBinding("system:kube-scheduler", "system:kube-scheduler", user("system:kube-scheduler")));
        bindings.add(clusterRoleBinding("system:monitoring", "system:monitoring", group("system:monitoring")));
        // Nodes are authorized by the Node authorizer; upstream keeps this binding without subjects.
        bindings.add(clusterRoleBinding("system:node", "system:node"));
        bindings.add(clusterRoleBinding("system:node-proxier", "system:node-proxier", user("system:kube-proxy")));
        bindings.add(clusterRoleBinding(NODE_SIMULATOR_ROLE, NODE_SIMULATOR_ROLE, user(NODE_SIMULATOR_USER)));
        bindings.add(clusterRoleBinding("system:public-info-viewer", "system:public-info-viewer", group("system:authenticated"), group("system:unauthenticated")));
        bindings.add(clusterRoleBinding("system:service-account-issuer-discovery", "system:service-account-issuer-discovery", group("system:serviceaccounts")));
        bindings.add(clusterRoleBinding("system:volume-scheduler", "system:volume-scheduler", user("system:kube-scheduler")));
        for (String controller : CONTROLLERS) {
            bindings.add(clusterRoleBinding("system:controller:" + controller, "system:controller:" + controller, serviceAccount("kube-system", controller)));
        }
        return bindings;
    }

    /**
     * The default Roles in kube-system: reading the front-proxy/client-CA config map that extension API servers use,
     * and the config-map leader locks of the controller manager and the scheduler; and in kube-node-lease the node
     * simulator's Lease rights.
     */
    public static List<ObjectNode> namespacedRoles() {
        List<ObjectNode> roles = new ArrayList<>();
        roles.add(role("kube-system", "extension-apiserver-authentication-reader",
                rule(READ).groups(CORE).resources("configmaps").names("extension-apiserver-authentication")));
        roles.add(role("kube-system", "system::leader-locking-kube-controller-manager",
                rule("watch").groups(CORE).resources("configmaps"),
                rule("get", "update").groups(CORE).resources("configmaps").names("kube-controller-manager")));
        roles.add(role("kube-system", "system::leader-locking-kube-scheduler",
                rule("watch").groups(CORE).resources("configmaps"),
                rule("get", "update").groups(CORE).resources("configmaps").names("kube-scheduler")));
        roles.add(role("kube-node-lease", NODE_SIMULATOR_ROLE,
                rule("create", "get", "list", "patch", "update").groups(COORDINATION).resources("leases")));
        return roles;
    }

    /** The default RoleBindings, for {@link #namespacedRoles()}. */
    public static List<ObjectNode> namespacedRoleBindings() {
        List<ObjectNode> bindings = new ArrayList<>();
        bindings.add(roleBinding("kube-system", "system::extension-apiserver-authentication-reader", "extension-apiserver-authentication-reader",
                user("system:kube-controller-manager"), user("system:kube-scheduler")));
        bindings.add(roleBinding("kube-system", "system::leader-locking-kube-controller-manager", "system::leader-locking-kube-controller-manager",
                user("system:kube-controller-manager"), serviceAccount("kube-system", "kube-controller-manager")));
        bindings.add(roleBinding("kube-system", "system::leader-locking-kube-scheduler", "system::leader-locking-kube-scheduler",
                user("system:kube-scheduler"), serviceAccount("kube-system", "kube-scheduler")));
        bindings.add(roleBinding("kube-node-lease", NODE_SIMULATOR_ROLE, NODE_SIMULATOR_ROLE, user(NODE_SIMULATOR_USER)));
        return bindings;
    }

    /**
     * The rules of {@code system:node}: what a kubelet may do in general. The Node authorizer narrows the
     * object-specific parts (secrets, config maps, volumes, tokens, leases) to the node's own pods.
     */
    public static List<PolicyRule> nodePolicyRules() {
        return nodeRules().stream().map(RuleBuilder::build).toList();
    }

    private static List<RuleBuilder> nodeRules() {
        return List.of(
                rule("create").groups(AUTHENTICATION).resources("tokenreviews"),
                rule("create").groups(AUTHORIZATION).resources("localsubjectaccessreviews", "subjectaccessreviews"),
                rule(READ).groups(CORE).resources("services"),
                rule("create", "get", "list", "watch").groups(CORE).resources("nodes"),
                rule("patch", "update").groups(CORE).resources("nodes/status"),
                rule("patch", "update").groups(CORE).resources("nodes"),
                rule("create", "patch", "update").groups(CORE).resources("events"),
                rule(READ).groups(CORE).resources("pods"),
                rule("create", "delete").groups(CORE).resources("pods"),
                rule("patch", "update").groups(CORE).resources("pods/status"),
                rule("create").groups(CORE).resources("pods/eviction"),
                rule(READ).groups(CORE).resources("configmaps", "secrets"),
                rule("get").groups(CORE).resources("persistentvolumeclaims", "persistentvolumes"),
                rule("get").groups(CORE).resources("endpoints"),
                rule("create", "get", "list", "watch").groups(CERTIFICATES).resources("certificatesigningrequests"),
                rule("create", "delete", "get", "patch", "update").groups(COORDINATION).resources("leases"),
                rule("get").groups(STORAGE).resources("volumeattachments"),
                rule("create").groups(CORE).resources("serviceaccounts/token"),
                rule("get", "patch", "update").groups(CORE).resources("persistentvolumeclaims/status"),
                rule(READ).groups(STORAGE).resources("csidrivers"),
                rule("create", "delete", "get", "patch", "update").groups(STORAGE).resources("csinodes"),
                rule(READ).groups(NODE).resources("runtimeclasses"));
    }

    private static List<ObjectNode> controllerRoles() {
        List<ObjectNode> roles = new ArrayList<>();
        roles.add(controllerRole("clusterrole-aggregation-controller",
                rule("escalate", "get", "list", "patch", "update", "watch").groups(RBAC).resources("clusterroles")));
        roles.add(controllerRole("cronjob-controller",
                rule("get", "list", "update", "watch").groups(BATCH).resources("cronjobs"),
                rule("create", "delete", "get", "list", "patch", "update", "watch").groups(BATCH).resources("jobs"),
                rule("update").groups(BATCH).resources("cronjobs/status"),
                rule("update").groups(BATCH).resources("cronjobs/finalizers"),
                rule("delete", "list").groups(CORE).resources("pods"),
                eventsRule()));
        roles.add(controllerRole("daemon-set-controller",
                rule(READ).groups(EXTENSIONS, APPS).resources("daemonsets"),
                rule("update").groups(EXTENSIONS, APPS).resources("daemonsets/status"),
                rule("update").groups(EXTENSIONS, APPS).resources("daemonsets/finalizers"),
                rule(READ).groups(CORE).resources("nodes"),
                rule("create", "delete", "list", "patch", "watch").groups(CORE).resources("pods"),
                rule("create").groups(CORE).resources("pods/binding"),
                rule("create", "delete", "get", "list", "patch", "update", "watch").groups(APPS).resources("controllerrevisions"),
                eventsRule()));
        roles.add(controllerRole("deployment-controller",
                rule("get", "list", "update", "watch").groups(EXTENSIONS, APPS).resources("deployments"),
                rule("update").groups(EXTENSIONS, APPS).resources("deployments/status"),
                rule("update").groups(EXTENSIONS, APPS).resources("deployments/finalizers"),
                rule("create", "delete", "get", "list", "patch", "update", "watch").groups(APPS, EXTENSIONS).resources("replicasets"),
                rule("get", "list", "update", "watch").groups(CORE).resources("pods"),
                eventsRule()));
        roles.add(controllerRole("disruption-controller",
                rule(READ).groups(EXTENSIONS, APPS).resources("deployments"),
                rule(READ).groups(APPS, EXTENSIONS).resources("replicasets"),
                rule(READ).groups(CORE).resources("replicationcontrollers"),
                rule(READ).groups(POLICY).resources("poddisruptionbudgets"),
                rule(READ).groups(APPS).resources("statefulsets"),
                rule("update").groups(POLICY).resources("poddisruptionbudgets/status"),
                rule("get").groups("*").resources("*/scale"),
                rule("patch", "update").groups(CORE).resources("pods/status"),
                eventsRule()));
        roles.add(controllerRole("endpoint-controller",
                rule(READ).groups(CORE).resources("services", "pods"),
                rule("get", "list", "create", "update", "delete").groups(CORE).resources("endpoints"),
                rule("create").groups(CORE).resources("endpoints/restricted"),
                eventsRule()));
        roles.add(controllerRole("endpointslice-controller",
                rule(READ).groups(CORE).resources("services", "pods", "nodes"),
                rule("update").groups(CORE).resources("services/finalizers"),
                rule("get", "list", "create", "update", "delete").groups(DISCOVERY).resources("endpointslices"),
                eventsRule()));
        roles.add(controllerRole("endpointslicemirroring-controller",
                rule(READ).groups(CORE).resources("services", "endpoints"),
                rule("update").groups(CORE).resources("services/finalizers"),
                rule("update").groups(CORE).resources("endpoints/finalizers"),
                rule("get", "list", "create", "update", "delete").groups(DISCOVERY).resources("endpointslices"),
                eventsRule()));
        roles.add(controllerRole("ephemeral-volume-controller",
                rule(READ).groups(CORE).resources("pods"),
                rule("update").groups(CORE).resources("pods/finalizers"),
                rule("get", "list", "watch", "create").groups(CORE).resources("persistentvolumeclaims"),
                eventsRule()));
        roles.add(controllerRole("generic-garbage-collector",
                rule("get", "list", "watch", "patch", "update", "delete").groups("*").resources("*"),
                eventsRule()));
        roles.add(controllerRole("horizontal-pod-autoscaler",
                rule(READ).groups(AUTOSCALING).resources("horizontalpodautoscalers"),
                rule("update").groups(AUTOSCALING).resources("horizontalpodautoscalers/status"),
                rule("get", "update").groups("*").resources("*/scale"),
                rule("list").groups(CORE).resources("pods"),
                rule("list").groups("metrics.k8s.io").resources("pods"),
                rule("get", "list").groups("custom.metrics.k8s.io", "external.metrics.k8s.io").resources("*"),
                eventsRule()));
        roles.add(controllerRole("job-controller",
                rule("get", "list", "patch", "update", "watch").groups(BATCH).resources("jobs"),
                rule("update").groups(BATCH).resources("jobs/status"),
                rule("update").groups(BATCH).resources("jobs/finalizers"),
                rule("list", "watch", "create", "delete", "patch").groups(CORE).resources("pods"),
                eventsRule()));
        roles.add(controllerRole("namespace-controller",
                rule("get", "list", "watch", "delete").groups(CORE).resources("namespaces"),
                rule("update").groups(CORE).resources("namespaces/finalize", "namespaces/status"),
                rule("get", "list", "delete", "deletecollection").groups("*").resources("*")));
        // Also the taint eviction controller's identity, as upstream: it reads a pod afresh before evicting it.
        roles.add(controllerRole("node-controller",
                rule("get", "list", "watch", "update", "delete", "patch").groups(CORE).resources("nodes"),
                rule("patch", "update").groups(CORE).resources("nodes/status"),
                rule("patch", "update").groups(CORE).resources("pods/status"),
                rule("get", "list", "watch", "delete").groups(CORE).resources("pods"),
                eventsRule()));
        roles.add(controllerRole("persistent-volume-binder",
                rule("get", "list", "watch", "update", "create", "delete").groups(CORE).resources("persistentvolumes"),
                rule("update").groups(CORE).resources("persistentvolumes/status"),
                rule("get", "list", "watch", "update").groups(CORE).resources("persistentvolumeclaims"),
                rule("update").groups(CORE).resources("persistentvolumeclaims/status"),
                rule("list", "watch", "get", "create", "delete").groups(CORE).resources("pods"),
                rule("get", "list", "watch").groups(STORAGE).resources("storageclasses"),
                rule("get", "create", "delete").groups(CORE).resources("endpoints"),
                rule("get", "create", "delete").groups(CORE).resources("services"),
                rule("get").groups(CORE).resources("secrets"),
                rule("get", "list").groups(CORE).resources("nodes"),
                eventsRule()));
        roles.add(controllerRole("pod-garbage-collector",
                rule("list", "watch", "delete").groups(CORE).resources("pods"),
                rule("get", "list", "watch").groups(CORE).resources("nodes"),
                rule("patch").groups(CORE).resources("pods/status")));
        roles.add(controllerRole("pv-protection-controller",
                rule("get", "list", "watch", "update").groups(CORE).resources("persistentvolumes"),
                eventsRule()));
        roles.add(controllerRole("pvc-protection-controller",
                rule("get", "list", "watch", "update").groups(CORE).resources("persistentvolumeclaims"),
                rule("list", "watch", "get").groups(CORE).resources("pods"),
                eventsRule()));
        roles.add(controllerRole("replicaset-controller",
                rule("get", "list", "update", "watch").groups(APPS, EXTENSIONS).resources("replicasets"),
                rule("update").groups(APPS, EXTENSIONS).resources("replicasets/status"),
                rule("update").groups(APPS, EXTENSIONS).resources("replicasets/finalizers"),
                rule("list", "watch", "patch", "create", "delete").groups(CORE).resources("pods"),
                eventsRule()));
        roles.add(controllerRole("replication-controller",
                rule("get", "list", "update", "watch").groups(CORE).resources("replicationcontrollers"),
                rule("update").groups(CORE).resources("replicationcontrollers/status"),
                rule("update").groups(CORE).resources("replicationcontrollers/finalizers"),
                rule("list", "watch", "patch", "create", "delete").groups(CORE).resources("pods"),
                eventsRule()));
        roles.add(controllerRole("resourcequota-controller",
                rule("list", "watch").groups("*").resources("*"),
                rule("update").groups(CORE).resources("resourcequotas/status"),
                eventsRule()));
        roles.add(controllerRole("root-ca-cert-publisher",
                rule("create", "update").groups(CORE).resources("configmaps"),
                eventsRule()));
        roles.add(controllerRole("service-account-controller",
                rule("create").groups(CORE).resources("serviceaccounts"),
                eventsRule()));
        roles.add(controllerRole("service-controller",
                rule(READ).groups(CORE).resources("services"),
                rule("patch", "update").groups(CORE).resources("services/status"),
                rule("list", "watch").groups(CORE).resources("nodes"),
                eventsRule()));
        roles.add(controllerRole("statefulset-controller",
                rule("list", "watch").groups(CORE).resources("pods"),
                rule(READ).groups(APPS).resources("statefulsets"),
                rule("update").groups(APPS).resources("statefulsets/status"),
                rule("update").groups(APPS).resources("statefulsets/finalizers"),
                rule("get", "create", "delete", "update", "patch").groups(CORE).resources("pods"),
                rule("get", "create", "delete", "update", "patch", "list", "watch").groups(APPS).resources("controllerrevisions"),
                rule("get", "create").groups(CORE).resources("persistentvolumeclaims"),
                rule("update", "delete").groups(CORE).resources("persistentvolumeclaims"),
                eventsRule()));
        roles.add(controllerRole("ttl-after-finished-controller",
                rule("get", "list", "watch", "delete").groups(BATCH).resources("jobs"),
                eventsRule()));
        roles.add(controllerRole("ttl-controller",
                rule("update", "patch", "list", "watch").groups(CORE).resources("nodes"),
                eventsRule()));
        return roles;
    }

    private static ObjectNode controllerRole(String controller, RuleBuilder... rules) {
        return clusterRole("system:controller:" + controller, Map.of(), rules);
    }

    private static RuleBuilder eventsRule() {
        return rule("create", "update", "patch").groups(CORE, EVENTS).resources("events");
    }

    private static ObjectNode clusterRole(String name, Map<String, String> labels, RuleBuilder... rules) {
        ObjectNode role = object("ClusterRole", name, labels);
        ArrayNode array = role.putArray("rules");
        for (RuleBuilder rule : rules) {
            array.add(rule.build().toJson());
        }
        return role;
    }

    private static ObjectNode role(String namespace, String name, RuleBuilder... rules) {
        ObjectNode role = clusterRole(name, Map.of(), rules);
        role.put("kind", "Role");
        ((ObjectNode) role.get("metadata")).put("namespace", namespace);
        return role;
    }

    private static ObjectNode roleBinding(String namespace, String name, String roleName, ObjectNode... subjects) {
        ObjectNode binding = clusterRoleBinding(name, roleName, subjects);
        binding.put("kind", "RoleBinding");
        ((ObjectNode) binding.get("metadata")).put("namespace", namespace);
        ((ObjectNode) binding.get("roleRef")).put("kind", "Role");
        return binding;
    }

    private static ObjectNode aggregatedRole(String name, Map<String, String> labels, String aggregateLabel) {
        ObjectNode role = object("ClusterRole", name, labels);
        role.putObject("aggregationRule").putArray("clusterRoleSelectors").addObject().putObject("matchLabels").put(aggregateLabel, "true");
        // The aggregation controller fills the rules in.
        role.putArray("rules");
        return role;
    }

    private static ObjectNode clusterRoleBinding(String name, String roleName, ObjectNode... subjects) {
        ObjectNode binding = object("ClusterRoleBinding", name, Map.of());
        ObjectNode roleRef = binding.putObject("roleRef");
        roleRef.put("apiGroup", RBAC);
        roleRef.put("kind", "ClusterRole");
        roleRef.put("name", roleName);
        if (subjects.length > 0) {
            ArrayNode array = binding.putArray("subjects");
            Arrays.stream(subjects).forEach(array::add);
        }
        return binding;
    }

    private static ObjectNode object(String kind, String name, Map<String, String> extraLabels) {
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        object.put("apiVersion", API_VERSION);
        object.put("kind", kind);
        ObjectNode metadata = object.putObject("metadata");
        metadata.put("name", name);
        metadata.putObject("annotations").put(AUTOUPDATE_ANNOTATION, "true");
        ObjectNode labels = metadata.putObject("labels");
        labels.put(BOOTSTRAPPING_LABEL, BOOTSTRAPPING_VALUE);
        extraLabels.forEach(labels::put);
        return object;
    }

    private static ObjectNode user(String name) {
        return subject("User", name, "");
    }

    private static ObjectNode group(String name) {
        return subject("Group", name, "");
    }

    private static ObjectNode serviceAccount(String namespace, String name) {
        return subject("ServiceAccount", name, namespace);
    }

    private static ObjectNode subject(String kind, String name, String namespace) {
        ObjectNode subject = JsonNodeFactory.instance.objectNode();
        if (!kind.equals("ServiceAccount")) {
            subject.put("apiGroup", RBAC);
        }
        subject.put("kind", kind);
        subject.put("name", name);
        if (!namespace.isEmpty()) {
            subject.put("namespace", namespace);
        }
        return subject;
    }

    private static RuleBuilder rule(String... verbs) {
        return new RuleBuilder(List.of(verbs));
    }

    /** Reads like upstream's {@code NewRule(verbs).Groups(…).Resources(…)}; lists are sorted as upstream stores them. */
    private static final class RuleBuilder {
        private final List<String> verbs;
        private List<String> groups = List.of();
        private List<String> resources = List.of();
        private List<String> names = List.of();
        private List<String> urls = List.of();

        RuleBuilder(List<String> verbs) {
            this.verbs = verbs.stream().sorted().toList();
        }

        RuleBuilder groups(String... values) {
            groups = List.of(values);
            return this;
        }

        RuleBuilder resources(String... values) {
            resources = Arrays.stream(values).sorted().toList();
            return this;
        }

        RuleBuilder names(String... values) {
            names = Arrays.stream(values).sorted().toList();
            return this;
        }

        RuleBuilder urls(String... values) {
            urls = Arrays.stream(values).sorted().toList();
            return this;
        }

        PolicyRule build() {
            return new PolicyRule(verbs, groups, resources, names, urls);
        }
    }
}
