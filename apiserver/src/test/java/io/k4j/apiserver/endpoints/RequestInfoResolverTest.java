package io.k4j.apiserver.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestInfoResolverTest {
    private final RequestInfoResolver resolver = new RequestInfoResolver();

    private RequestInfo resolve(String method, String path) {
        return resolver.resolve(method, path, Map.of());
    }

    @Test
    void namespacedResourceVerbs() {
        assertThat(resolve("GET", "/api/v1/namespaces/default/pods"))
                .isEqualTo(new RequestInfo(true, "/api/v1/namespaces/default/pods", "list", "api", "", "v1", "default", "pods", "", ""));
        assertThat(resolve("GET", "/api/v1/namespaces/default/pods/web").verb()).isEqualTo("get");
        assertThat(resolve("POST", "/api/v1/namespaces/default/pods").verb()).isEqualTo("create");
        assertThat(resolve("PUT", "/api/v1/namespaces/default/pods/web").verb()).isEqualTo("update");
        assertThat(resolve("PATCH", "/api/v1/namespaces/default/pods/web").verb()).isEqualTo("patch");
        assertThat(resolve("DELETE", "/api/v1/namespaces/default/pods/web").verb()).isEqualTo("delete");
        assertThat(resolve("DELETE", "/api/v1/namespaces/default/pods").verb()).isEqualTo("deletecollection");
    }

    @Test
    void groupsSubresourcesAndClusterScope() {
        RequestInfo scale = resolve("PUT", "/apis/apps/v1/namespaces/prod/deployments/web/scale");
        assertThat(scale.apiGroup()).isEqualTo("apps");
        assertThat(scale.resource()).isEqualTo("deployments");
        assertThat(scale.subresource()).isEqualTo("scale");
        assertThat(scale.name()).isEqualTo("web");
        RequestInfo nodes = resolve("GET", "/api/v1/nodes");
        assertThat(nodes.namespace()).isEmpty();
        assertThat(nodes.scope()).isEqualTo("cluster");
    }

    @Test
    void namespaceObjectsAreTheirOwnNamespace() {
        RequestInfo namespace = resolve("GET", "/api/v1/namespaces/dev");
        assertThat(namespace.resource()).isEqualTo("namespaces");
        assertThat(namespace.name()).isEqualTo("dev");
        assertThat(namespace.namespace()).isEqualTo("dev");
        RequestInfo finalize = resolve("PUT", "/api/v1/namespaces/dev/finalize");
        assertThat(finalize.resource()).isEqualTo("namespaces");
        assertThat(finalize.subresource()).isEqualTo("finalize");
    }

    @Test
    void watchesByParameterAndLegacyPath() {
        assertThat(resolver.resolve("GET", "/api/v1/namespaces/default/pods", Map.of("watch", List.of("true"))).verb()).isEqualTo("watch");
        RequestInfo legacy = resolve("GET", "/api/v1/watch/namespaces/default/pods/web");
        assertThat(legacy.verb()).isEqualTo("watch");
        assertThat(legacy.name()).isEqualTo("web");
        RequestInfo byField = resolver.resolve("GET", "/api/v1/namespaces/default/pods", Map.of("watch", List.of("1"), "fieldSelector", List.of("metadata.name=web")));
        assertThat(byField.name()).as("a name field selector names the object for authorization").isEqualTo("web");
    }

    @Test
    void nonResourcePaths() {
        assertThat(resolve("GET", "/healthz")).isEqualTo(RequestInfo.nonResource("/healthz", "get"));
        assertThat(resolve("GET", "/api").resourceRequest()).isFalse();
        assertThat(resolve("GET", "/api/v1").resourceRequest()).isFalse();
        assertThat(resolve("GET", "/apis/apps/v1").resourceRequest()).isFalse();
        assertThat(resolve("POST", "/openapi/v2").verb()).isEqualTo("post");
    }
}
