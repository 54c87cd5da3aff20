package io.k4j.api.schema;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.ApiGroupVersions;
import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.resource.SubresourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The REST operations the apiserver serves, in the shape upstream's OpenAPI documents describe them: one
 * {@link PathItem} per URL path with its operations, operation ids ({@code listCoreV1NamespacedPod}), actions
 * ({@code x-kubernetes-action}), kinds and query parameters. Both OpenAPI renderers read this one model.
 * Immutable and thread-safe.
 */
final class ApiOperations {
    static final List<String> OBJECT_MEDIA_TYPES = List.of("application/json", "application/yaml");
    static final List<String> WATCH_MEDIA_TYPES = List.of("application/json", "application/yaml", "application/json;stream=watch");
    static final List<String> PATCH_MEDIA_TYPES = List.of(
            "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml");
    static final List<String> TEXT_MEDIA_TYPES = List.of("text/plain", "application/json", "application/yaml");
    static final List<String> ANY_MEDIA_TYPES = List.of("*/*");

    /** A query or path parameter. */
    record Parameter(String name, String in, String type, boolean required, String description) {
        Parameter {
            requireNonNull(name, "name is null");
            requireNonNull(in, "in is null");
            requireNonNull(type, "type is null");
            requireNonNull(description, "description is null");
        }
    }

    /**
     * One operation.
     *
     * @param method lower-case HTTP method
     * @param requestBody the definition of the body, empty when the operation takes none
     * @param response the definition of the success response, empty for plain text or streams
     * @param successCodes the 2xx codes upstream documents ({@code 200}, {@code 201}, {@code 202})
     */
    record Operation(
            String method,
            String operationId,
            String description,
            String tag,
            Optional<String> action,
            Optional<GroupVersionKind> kind,
            List<Parameter> parameters,
            Optional<String> requestBody,
            List<String> consumes,
            Optional<String> response,
            List<String> produces,
            List<Integer> successCodes) {
        Operation {
            parameters = List.copyOf(parameters);
            consumes = List.copyOf(consumes);
            produces = List.copyOf(produces);
            successCodes = List.copyOf(successCodes);
        }
    }

    /** A URL path with its path-level parameters and operations. */
    record PathItem(String path, List<Parameter> parameters, List<Operation> operations) {
        PathItem {
            parameters = List.copyOf(parameters);
            operations = List.copyOf(operations);
        }
    }

    private static final Parameter PRETTY = query("pretty", "string", "If 'true', the output is pretty printed.");
    private static final Parameter NAMESPACE = new Parameter("namespace", "path", "string", true, "object name and auth scope, such as for teams and projects");
    private static final Parameter DRY_RUN = query("dryRun", "string", "When present, modifications are not persisted. The only valid value is All.");
    private static final Parameter FIELD_MANAGER = query("fieldManager", "string", "The name of the actor making these changes, recorded in managedFields.");
    private static final Parameter FIELD_VALIDATION = query("fieldValidation", "string",
            "How the server treats unknown and duplicate fields in the request body: Ignore, Warn (the default) or Strict.");
    private static final Parameter FORCE = query("force", "boolean", "Force an apply request to take fields owned by other managers. Only for apply patches.");
    private static final Parameter GRACE_PERIOD = query("gracePeriodSeconds", "integer", "Seconds before the object is deleted; zero deletes immediately.");
    private static final Parameter IGNORE_STORE_READ_ERROR = query("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean",
            "Delete an object that cannot be read from storage. Dangerous.");
    private static final Parameter ORPHAN_DEPENDENTS = query("orphanDependents", "boolean", "Deprecated: use propagationPolicy.");
    private static final Parameter PROPAGATION_POLICY = query("propagationPolicy", "string",
            "How dependents are garbage collected: Orphan, Background or Foreground.");
    private static final List<Parameter> LIST_PARAMETERS = List.of(
            query("allowWatchBookmarks", "boolean", "Request watch events of type BOOKMARK."),
            query("continue", "string", "The continue token of a previous paginated list call."),
            query("fieldSelector", "string", "Restrict the returned objects by their fields."),
            query("labelSelector", "string", "Restrict the returned objects by their labels."),
            query("limit", "integer", "The maximum number of objects to return in one page."),
            query("resourceVersion", "string", "The resource version the request is served from."),
            query("resourceVersionMatch", "string", "How resourceVersion applies to a list call: Exact or NotOlderThan."),
            query("sendInitialEvents", "boolean", "Start a watch with synthetic events for the current state."),
            query("timeoutSeconds", "integer", "Timeout for the list or watch call."),
            query("watch", "boolean", "Watch for changes instead of listing."));

    private ApiOperations() {}

    private static Parameter query(String name, String type, String description) {
        return new Parameter(name, "query", type, false, description);
    }

    private static Parameter path(String name, String description) {
        return new Parameter(name, "path", "string", true, description);
    }

    /** The path of a group version's root: {@code /api/v1} or {@code /apis/apps/v1}. */
    static String prefix(String group, String version) {
        return group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    }

    /** {@code CoreV1}, {@code AppsV1}, {@code RbacAuthorizationV1}: upstream's operation id infix. */
    static String groupVersionName(String group, String version) {
        return groupName(group) + capitalize(version);
    }

    private static String groupName(String group) {
        if (group.isEmpty()) {
            return "Core";
        }
        StringBuilder name = new StringBuilder();
        for (String part : group.replace(".k8s.io", "").split("\\.")) {
            name.append(capitalize(part));
        }
        return name.toString();
    }

    /** {@code core_v1}, {@code apps_v1}, {@code rbacAuthorization_v1}: upstream's operation tag. */
    static String tag(String group, String version) {
        return groupTag(group) + "_" + version;
    }

    private static String groupTag(String group) {
        String name = groupName(group);
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    private static String capitalize(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** The root path items: {@code /api/}, {@code /apis/}. */
    static List<PathItem> rootPaths() {
        return List.of(
                new PathItem("/api/", List.of(), List.of(discovery("getCoreAPIVersions", "get available API versions", "core", new GroupVersionKind("", "v1", "APIVersions")))),
                new PathItem("/apis/", List.of(), List.of(discovery("getAPIVersions", "get available API versions", "apis", new GroupVersionKind("", "v1", "APIGroupList")))));
    }

    /** The path item of a named group's root, {@code /apis/apps/}. */
    static PathItem groupPath(ApiGroupVersions group) {
        String name = groupName(group.group());
        return new PathItem("/apis/" + group.group() + "/", List.of(),
                List.of(discovery("get" + name + "APIGroup", "get information of a group", groupTag(group.group()), new GroupVersionKind("", "v1", "APIGroup"))));
    }

    /** Every path of one group version: its root and the operations of each resource in it. */
    static List<PathItem> groupVersionPaths(String group, String version) {
        List<PathItem> items = new ArrayList<>();
        items.add(new PathItem(prefix(group, version) + "/", List.of(), List.of(discovery(
                "get" + groupVersionName(group, version) + "APIResources", "get available resources", tag(group, version),
                new GroupVersionKind("", "v1", "APIResourceList")))));
        for (ResourceType type : BuiltinResources.resources(group, version)) {
            items.addAll(resourcePaths(type));
        }
        return items;
    }

    private static Operation discovery(String operationId, String description, String tag, GroupVersionKind responseKind) {
        return new Operation("get", operationId, description, tag, Optional.empty(), Optional.empty(), List.of(), Optional.empty(),
                OBJECT_MEDIA_TYPES, Optional.of(Schemas.builtin().definitionName(responseKind)), OBJECT_MEDIA_TYPES, List.of(200));
    }

    private static List<PathItem> resourcePaths(ResourceType type) {
        Schemas schemas = Schemas.builtin();
        String group = type.gvk().group();
        String version = type.gvk().version();
        String gv = groupVersionName(group, version);
        String tag = tag(group, version);
        String kind = type.kind();
        String scope = type.namespaced() ? "Namespaced" : "";
        String base = prefix(group, version) + (type.namespaced() ? "/namespaces/{namespace}/" : "/") + type.plural();
        String item = base + "/{name}";
        Parameter name = path("name", "name of the " + kind);
        List<Parameter> collectionScope = type.namespaced() ? List.of(NAMESPACE, PRETTY) : List.of(PRETTY);
        List<Parameter> itemScope = type.namespaced() ? List.of(name, NAMESPACE, PRETTY) : List.of(name, PRETTY);
        Optional<GroupVersionKind> gvk = Optional.of(type.gvk());
        String definition = schemas.definitionName(type.gvk());
        List<PathItem> items = new ArrayList<>();

        if (BuiltinResources.isCreateOnly(type)) {
            items.add(new PathItem(base, collectionScope, List.of(new Operation("post", "create" + gv + scope + kind, "create a " + kind, tag,
                    Optional.of("post"), gvk, List.of(DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION), Optional.of(definition), ANY_MEDIA_TYPES,
                    Optional.of(definition), OBJECT_MEDIA_TYPES, List.of(200, 201, 202)))));
            return items;
        }

        String listDefinition = schemas.definitionName(new GroupVersionKind(group, version, type.listKind()));
        List<Operation> collection = new ArrayList<>();
        collection.add(new Operation("get", "list" + gv + scope + kind, "list or watch objects of kind " + kind, tag, Optional.of("list"), gvk,
                LIST_PARAMETERS, Optional.empty(), ANY_MEDIA_TYPES, Optional.of(listDefinition), WATCH_MEDIA_TYPES, List.of(200)));
        collection.add(new Operation("post", "create" + gv + scope + kind, "create a " + kind, tag, Optional.of("post"), gvk,
                List.of(DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION), Optional.of(definition), ANY_MEDIA_TYPES, Optional.of(definition),
                OBJECT_MEDIA_TYPES, List.of(200, 201, 202)));
        if (type.verbs().contains("deletecollection")) {
            List<Parameter> parameters = new ArrayList<>(LIST_PARAMETERS.stream().filter(parameter -> !parameter.name().equals("watch")
                    && !parameter.name().equals("allowWatchBookmarks")).toList());
            parameters.addAll(List.of(DRY_RUN, GRACE_PERIOD, IGNORE_STORE_READ_ERROR, ORPHAN_DEPENDENTS, PROPAGATION_POLICY));
            collection.add(new Operation("delete", "delete" + gv + "Collection" + scope + kind, "delete collection of " + kind, tag,
                    Optional.of("deletecollection"), gvk, parameters, Optional.of(Schemas.DELETE_OPTIONS), ANY_MEDIA_TYPES,
                    Optional.of(Schemas.STATUS), OBJECT_MEDIA_TYPES, List.of(200)));
        }
        items.add(new PathItem(base, collectionScope, collection));

        items.add(new PathItem(item, itemScope, List.of(
                new Operation("get", "read" + gv + scope + kind, "read the specified " + kind, tag, Optional.of("get"), gvk, List.of(),
                        Optional.empty(), ANY_MEDIA_TYPES, Optional.of(definition), OBJECT_MEDIA_TYPES, List.of(200)),
                new Operation("put", "replace" + gv + scope + kind, "replace the specified " + kind, tag, Optional.of("put"), gvk,
                        List.of(DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION), Optional.of(definition), ANY_MEDIA_TYPES, Optional.of(definition),
                        OBJECT_MEDIA_TYPES, List.of(200, 201)),
                new Operation("delete", "delete" + gv + scope + kind, "delete a " + kind, tag, Optional.of("delete"), gvk,
                        List.of(DRY_RUN, GRACE_PERIOD, IGNORE_STORE_READ_ERROR, ORPHAN_DEPENDENTS, PROPAGATION_POLICY),
                        Optional.of(Schemas.DELETE_OPTIONS), ANY_MEDIA_TYPES, Optional.of(Schemas.STATUS), OBJECT_MEDIA_TYPES, List.of(200, 202)),
                patch("patch" + gv + scope + kind, "partially update the specified " + kind, tag, gvk, definition))));

        for (SubresourceType subresource : BuiltinResources.subresources(type.gvr())) {
            items.addAll(subresourcePaths(type, subresource, item, itemScope, gv, scope + kind, tag));
        }

        if (type.namespaced()) {
            items.add(new PathItem(prefix(group, version) + "/" + type.plural(), withPretty(LIST_PARAMETERS), List.of(new Operation("get",
                    "list" + gv + kind + "ForAllNamespaces", "list or watch objects of kind " + kind, tag, Optional.of("list"), gvk,
                    List.of(), Optional.empty(), ANY_MEDIA_TYPES, Optional.of(listDefinition), WATCH_MEDIA_TYPES, List.of(200)))));
        }
        String watchBase = prefix(group, version) + "/watch" + (type.namespaced() ? "/namespaces/{namespace}/" : "/") + type.plural();
        List<Parameter> watchCollectionScope = new ArrayList<>(LIST_PARAMETERS);
        if (type.namespaced()) {
            watchCollectionScope.add(NAMESPACE);
        }
        items.add(new PathItem(watchBase, withPretty(watchCollectionScope), List.of(watch("watch" + gv + scope + kind + "List",
                "watch individual changes to a list of " + kind + ". deprecated: use the 'watch' parameter with a list operation instead.",
                tag, "watchlist", gvk))));
        List<Parameter> watchItemScope = new ArrayList<>(watchCollectionScope);
        watchItemScope.add(name);
        items.add(new PathItem(watchBase + "/{name}", withPretty(watchItemScope), List.of(watch("watch" + gv + scope + kind,
                "watch changes to an object of kind " + kind + ". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.",
                tag, "watch", gvk))));
        if (type.namespaced()) {
            items.add(new PathItem(prefix(group, version) + "/watch/" + type.plural(), withPretty(LIST_PARAMETERS), List.of(watch(
                    "watch" + gv + kind + "ListForAllNamespaces",
                    "watch individual changes to a list of " + kind + ". deprecated: use the 'watch' parameter with a list operation instead.",
                    tag, "watchlist", gvk))));
        }
        return items;
    }

    private static List<Parameter> withPretty(List<Parameter> parameters) {
        List<Parameter> all = new ArrayList<>(parameters);
        all.add(PRETTY);
        return all;
    }

    private static Operation watch(String operationId, String description, String tag, String action, Optional<GroupVersionKind> gvk) {
        return new Operation("get", operationId, description, tag, Optional.of(action), gvk, List.of(), Optional.empty(), ANY_MEDIA_TYPES,
                Optional.of(Schemas.WATCH_EVENT), WATCH_MEDIA_TYPES, List.of(200));
    }

    private static Operation patch(String operationId, String description, String tag, Optional<GroupVersionKind> gvk, String definition) {
        return new Operation("patch", operationId, description, tag, Optional.of("patch"), gvk,
                List.of(DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE), Optional.of(Schemas.PATCH), PATCH_MEDIA_TYPES,
                Optional.of(definition), OBJECT_MEDIA_TYPES, List.of(200, 201));
    }

    private static List<PathItem> subresourcePaths(ResourceType type, SubresourceType subresource, String item, List<Parameter> itemScope,
            String gv, String scopedKind, String tag) {
        String operationSuffix = gv + scopedKind;
        Schemas schemas = Schemas.builtin();
        String path = item + "/" + subresource.name();
        String subresourceName = capitalize(subresource.name());
        String owner = type.kind();
        Optional<GroupVersionKind> gvk = Optional.of(subresource.gvk());
        List<Parameter> writeParameters = List.of(DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION);
        switch (subresource.name()) {
            case "status", "scale", "ephemeralcontainers" -> {
                String definition = schemas.definitionName(subresource.gvk());
                return List.of(new PathItem(path, itemScope, List.of(
                        new Operation("get", "read" + operationSuffix + subresourceName, "read " + subresource.name() + " of the specified " + owner, tag,
                                Optional.of("get"), gvk, List.of(), Optional.empty(), ANY_MEDIA_TYPES, Optional.of(definition), OBJECT_MEDIA_TYPES, List.of(200)),
                        new Operation("put", "replace" + operationSuffix + subresourceName, "replace " + subresource.name() + " of the specified " + owner, tag,
                                Optional.of("put"), gvk, writeParameters, Optional.of(definition), ANY_MEDIA_TYPES, Optional.of(definition),
                                OBJECT_MEDIA_TYPES, List.of(200, 201)),
                        patch("patch" + operationSuffix + subresourceName, "partially update " + subresource.name() + " of the specified " + owner, tag, gvk, definition))));
            }
            case "finalize" -> {
                String definition = schemas.definitionName(subresource.gvk());
                return List.of(new PathItem(path, itemScope, List.of(new Operation("put", "replace" + operationSuffix + subresourceName,
                        "replace finalize of the specified " + owner, tag, Optional.of("put"), gvk, writeParameters, Optional.of(definition),
                        ANY_MEDIA_TYPES, Optional.of(definition), OBJECT_MEDIA_TYPES, List.of(200, 201)))));
            }
            case "binding", "eviction", "token" -> {
                String definition = schemas.definitionName(subresource.gvk());
                return List.of(new PathItem(path, itemScope, List.of(new Operation("post", "create" + operationSuffix + subresourceName,
                        "create " + subresource.name() + " of a " + owner, tag, Optional.of("post"), gvk, writeParameters, Optional.of(definition),
                        ANY_MEDIA_TYPES, Optional.of(definition), OBJECT_MEDIA_TYPES, List.of(200, 201, 202)))));
            }
            case "log" -> {
                List<Parameter> parameters = List.of(
                        query("container", "string", "The container to stream logs of; defaults to the only container."),
                        query("follow", "boolean", "Follow the log stream."),
                        query("insecureSkipTLSVerifyBackend", "boolean", "Do not verify the serving certificate of the kubelet."),
                        query("limitBytes", "integer", "Stop after this many bytes."),
                        query("previous", "boolean", "Return the logs of the previous, terminated container."),
                        query("sinceSeconds", "integer", "Only logs newer than this many seconds."),
                        query("stream", "string", "The log stream: All, Stdout or Stderr."),
                        query("tailLines", "integer", "The number of lines from the end of the log to show."),
                        query("timestamps", "boolean", "Prefix every line with an RFC3339 timestamp."));
                return List.of(new PathItem(path, itemScope, List.of(new Operation("get", "read" + operationSuffix + subresourceName,
                        "read log of the specified " + owner, tag, Optional.of("get"), Optional.of(type.gvk()), parameters, Optional.empty(),
                        ANY_MEDIA_TYPES, Optional.empty(), TEXT_MEDIA_TYPES, List.of(200)))));
            }
            case "exec", "attach", "portforward" -> {
                List<Parameter> parameters = switch (subresource.name()) {
                    case "exec" -> List.of(query("command", "string", "The command to run, one argument per repetition."),
                            query("container", "string", "The container to run in."), query("stderr", "boolean", "Redirect standard error."),
                            query("stdin", "boolean", "Redirect standard input."), query("stdout", "boolean", "Redirect standard output."),
                            query("tty", "boolean", "Allocate a terminal."));
                    case "attach" -> List.of(query("container", "string", "The container to attach to."),
                            query("stderr", "boolean", "Redirect standard error."), query("stdin", "boolean", "Redirect standard input."),
                            query("stdout", "boolean", "Redirect standard output."), query("tty", "boolean", "Allocate a terminal."));
                    default -> List.of(query("ports", "integer", "The ports to forward."));
                };
                List<Parameter> scope = new ArrayList<>(parameters);
                scope.addAll(itemScope.stream().filter(parameter -> !parameter.name().equals("pretty")).toList());
                return List.of(new PathItem(path, scope, List.of(
                        connect("get", "connect" + gv + "Get" + scopedKind + subresourceName, subresource, owner, tag, gvk),
                        connect("post", "connect" + gv + "Post" + scopedKind + subresourceName, subresource, owner, tag, gvk))));
            }
            case "proxy" -> {
                List<PathItem> items = new ArrayList<>();
                List<Parameter> scope = new ArrayList<>(itemScope.stream().filter(parameter -> !parameter.name().equals("pretty")).toList());
                scope.add(query("path", "string", "The path to send to the proxied " + owner + "."));
                items.add(new PathItem(path, scope, proxyOperations(gv, scopedKind, subresourceName, "", subresource, owner, tag, gvk)));
                List<Parameter> withPath = new ArrayList<>(itemScope.stream().filter(parameter -> !parameter.name().equals("pretty")).toList());
                withPath.add(path("path", "path to the resource"));
                withPath.add(query("path", "string", "The path to send to the proxied " + owner + "."));
                items.add(new PathItem(path + "/{path}", withPath, proxyOperations(gv, scopedKind, subresourceName, "WithPath", subresource, owner, tag, gvk)));
                return items;
            }
            default -> throw new IllegalStateException("no OpenAPI description for subresource " + subresource.qualifiedName());
        }
    }

    private static List<Operation> proxyOperations(String gv, String scopedKind, String subresourceName, String pathSuffix, SubresourceType subresource,
            String owner, String tag, Optional<GroupVersionKind> gvk) {
        List<Operation> operations = new ArrayList<>();
        for (String method : List.of("get", "put", "post", "delete", "options", "head", "patch")) {
            // connect operation ids put the method after the group version: connectCoreV1GetNamespacedPodProxy
            operations.add(connect(method, "connect" + gv + capitalize(method) + scopedKind + subresourceName + pathSuffix, subresource, owner, tag, gvk));
        }
        return operations;
    }

    private static Operation connect(String method, String operationId, SubresourceType subresource, String owner, String tag, Optional<GroupVersionKind> gvk) {
        return new Operation(method, operationId, "connect " + method.toUpperCase(Locale.ROOT) + " requests to " + subresource.name() + " of " + owner,
                tag, Optional.of("connect"), gvk, List.of(), Optional.empty(), ANY_MEDIA_TYPES, Optional.empty(), ANY_MEDIA_TYPES, List.of(200));
    }
}
