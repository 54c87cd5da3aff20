package io.k4j.apiserver.testing;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import java.util.List;
import java.util.Set;

/** Resource types for apiserver tests. */
public final class TestResources {
    public static final Set<String> ALL_VERBS = Set.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    public static final ResourceType PODS = new ResourceType(new GroupVersionKind("", "v1", "Pod"), "pods", "pod",
            List.of("po"), List.of("all"), true, ALL_VERBS, Set.of("status"), Pod.class);

    public static final ResourceType CONFIG_MAPS = new ResourceType(new GroupVersionKind("", "v1", "ConfigMap"), "configmaps", "configmap",
            List.of("cm"), List.of(), true, ALL_VERBS, Set.of(), ConfigMap.class);

    public static final ResourceType NAMESPACES = new ResourceType(new GroupVersionKind("", "v1", "Namespace"), "namespaces", "namespace",
            List.of("ns"), List.of(), false, Set.of("create", "delete", "get", "list", "patch", "update", "watch"), Set.of("status"), Namespace.class);

    public static final ResourceType DEPLOYMENTS = new ResourceType(new GroupVersionKind("apps", "v1", "Deployment"), "deployments", "deployment",
            List.of("deploy"), List.of("all"), true, ALL_VERBS, Set.of("status"), io.fabric8.kubernetes.api.model.apps.Deployment.class);

    private TestResources() {}
}
