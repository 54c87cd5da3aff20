package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.api.resource.GroupVersionResource;
import org.junit.jupiter.api.Test;

class StorageKeysTest {
    @Test
    void upstreamPrefixes() {
        assertThat(StorageKeys.resourcePrefix(new GroupVersionResource("", "v1", "pods"))).isEqualTo("/registry/pods/");
        assertThat(StorageKeys.resourcePrefix(new GroupVersionResource("", "v1", "services"))).isEqualTo("/registry/services/specs/");
        assertThat(StorageKeys.resourcePrefix(new GroupVersionResource("", "v1", "endpoints"))).isEqualTo("/registry/services/endpoints/");
        assertThat(StorageKeys.resourcePrefix(new GroupVersionResource("", "v1", "nodes"))).isEqualTo("/registry/minions/");
        assertThat(StorageKeys.resourcePrefix(new GroupVersionResource("apps", "v1", "deployments"))).isEqualTo("/registry/deployments/");
        assertThat(StorageKeys.resourcePrefix(new GroupVersionResource("rbac.authorization.k8s.io", "v1", "clusterrolebindings"))).isEqualTo("/registry/clusterrolebindings/");
        assertThat(StorageKeys.resourcePrefix(new GroupVersionResource("example.com", "v1", "widgets"))).isEqualTo("/registry/example.com/widgets/");
    }

    @Test
    void keys() {
        assertThat(StorageKeys.key("/registry/pods/", "default", "x")).isEqualTo("/registry/pods/default/x");
        assertThat(StorageKeys.key("/registry/namespaces/", "", "kube-system")).isEqualTo("/registry/namespaces/kube-system");
        assertThat(StorageKeys.namespacePrefix("/registry/pods/", "default")).isEqualTo("/registry/pods/default/");
    }
}
