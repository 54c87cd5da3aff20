package io.k4j.controllers.dynamic;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;

/**
 * One resource the apiserver serves, as discovery describes it: what client-go's REST mapper knows about a kind.
 *
 * @param group the API group, empty for the core group
 * @param version the version, e.g. {@code v1}
 * @param kind e.g. {@code ReplicaSet}
 * @param plural the resource name in URLs, e.g. {@code replicasets}
 * @param namespaced whether objects live in namespaces
 * @param verbs what the resource supports, e.g. {@code list}, {@code watch}, {@code delete}, {@code deletecollection}
 */
public record ApiResource(String group, String version, String kind, String plural, boolean namespaced, List<String> verbs) {
    public ApiResource {
        requireNonNull(group, "group is null");
        requireNonNull(version, "version is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(plural, "plural is null");
        verbs = List.copyOf(requireNonNull(verbs, "verbs is null"));
    }

    /** {@code v1} for the core group, {@code group/version} otherwise, as in {@code apiVersion} fields. */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** {@code plural.group}, or the plural alone for the core group, as quota's {@code count/} names and RBAC spell it. */
    public String groupResource() {
        return group.isEmpty() ? plural : plural + "." + group;
    }

    public boolean supports(String verb) {
        return verbs.contains(verb);
    }

    /** The URL path of the collection in {@code namespace} (ignored when cluster-scoped). */
    public String collectionPath(String namespace) {
        StringBuilder path = new StringBuilder(group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version);
        if (namespaced) {
            path.append("/namespaces/").append(namespace);
        }
        return path.append('/').append(plural).toString();
    }

    /** The URL path of one object. */
    public String objectPath(String namespace, String name) {
        return collectionPath(namespace) + "/" + name;
    }

    /** What fabric8's generic client needs to address the resource without discovery of its own. */
    public ResourceDefinitionContext definitionContext() {
        return new ResourceDefinitionContext.Builder()
                .withGroup(group)
                .withVersion(version)
                .withKind(kind)
                .withPlural(plural)
                .withNamespaced(namespaced)
                .build();
    }
}
