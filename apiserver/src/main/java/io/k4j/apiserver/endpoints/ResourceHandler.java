package io.k4j.apiserver.endpoints;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Codec;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.api.protobuf.KubernetesProtobuf;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.schema.UnknownFields;
import io.k4j.api.selection.FieldSelector;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.selection.SelectorParseException;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.registry.generic.CachedObject;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import io.k4j.apiserver.registry.generic.DeleteOptions;
import io.k4j.apiserver.registry.generic.GenericStore;
import io.k4j.apiserver.registry.generic.ListOptions;
import io.k4j.apiserver.registry.generic.ListResult;
import io.k4j.apiserver.registry.generic.ObjectMetadata;
import io.k4j.apiserver.registry.generic.OperationContext;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.StoreRegistry;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.registry.generic.WatchCache;
import io.k4j.apiserver.registry.generic.WatchItem;
import io.k4j.apiserver.registry.generic.WriteResult;
import io.k4j.apiserver.stream.BulkOutputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The REST handlers of resources, as upstream's endpoint handlers: GET, LIST, WATCH, POST, PUT, PATCH, DELETE and
 * DELETE of collections on the generic stores, subresources, and create-only resources; body decoding with
 * {@code fieldValidation}, {@code dryRun}, and response encoding (JSON, YAML, Table, PartialObjectMetadata).
 * Thread-safe.
 */
public final class ResourceHandler {
    private static final int MIN_WATCH_TIMEOUT_SECONDS = 1800;
    /** A streamed YAML list goes out in pieces of this size rather than in the YAML writer's small ones. */
    private static final int YAML_BUFFER_BYTES = 64 * 1024;
    private static final byte[] EVENT_END = "}\n".getBytes(StandardCharsets.UTF_8);
    /** {@code {"type":"<type>","object":} by event type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR). */
    private static final Map<String, byte[]> EVENT_HEADS = new ConcurrentHashMap<>();
    private static final String APPLY_PATCH = "application/apply-patch+yaml";

    private final StoreRegistry registry;
    private final Map<GroupVersionResource, CreateOnlyResource> createOnly;
    private final Optional<UnknownFieldDetector> unknownFields;
    private final Optional<StrategicMergePatcher> strategicMergePatcher;
    private final LongRunningListener longRunning;
    private final Duration bookmarkInterval;

    public ResourceHandler(StoreRegistry registry, List<CreateOnlyResource> createOnlyResources, Optional<UnknownFieldDetector> unknownFields,
            Optional<StrategicMergePatcher> strategicMergePatcher, LongRunningListener longRunning, Duration bookmarkInterval) {
        this.registry = requireNonNull(registry, "registry is null");
        Map<GroupVersionResource, CreateOnlyResource> byResource = new java.util.HashMap<>();
        for (CreateOnlyResource resource : createOnlyResources) {
            byResource.put(resource.type().gvr(), resource);
        }
        this.createOnly = Map.copyOf(byResource);
        this.unknownFields = requireNonNull(unknownFields, "unknownFields is null");
        this.strategicMergePatcher = requireNonNull(strategicMergePatcher, "strategicMergePatcher is null");
        this.longRunning = requireNonNull(longRunning, "longRunning is null");
        this.bookmarkInterval = requireNonNull(bookmarkInterval, "bookmarkInterval is null");
    }

    /** Serves one resource request. {@code user} is the (possibly impersonated) requester. */
    public void handle(HttpExchange exchange, RequestInfo info, UserInfo user) throws IOException {
        GroupVersionResource resource = new GroupVersionResource(info.apiGroup(), info.apiVersion(), info.resource());
        CreateOnlyResource createOnlyResource = createOnly.get(resource);
        if (createOnlyResource != null) {
            handleCreateOnly(exchange, info, user, createOnlyResource);
            return;
        }
        GenericStore store = registry.genericStore(resource).orElseThrow(Responses::notFound);
        ResourceType type = store.type();
        String namespace = type.namespaced() ? info.namespace() : "";
        if (!type.namespaced() && !info.namespace().isEmpty() && !info.resource().equals("namespaces")) {
            throw Responses.notFound();
        }
        boolean collectionVerb = info.verb().equals("list") || info.verb().equals("watch") || info.verb().equals("deletecollection") || info.verb().equals("create");
        if (type.namespaced() && namespace.isEmpty() && !(info.verb().equals("list") || info.verb().equals("watch"))) {
            throw Responses.notFound();
        }
        if (info.name().isEmpty() && !collectionVerb) {
            throw Responses.notFound();
        }
        if (!info.subresource().isEmpty()) {
            handleSubresource(exchange, info, user, store, namespace);
            return;
        }
        if (!type.verbs().contains(info.verb())) {
            throw StatusException.methodNotSupported(type.gvk().group(), type.plural(), info.verb());
        }
        switch (info.verb()) {
            case "get" -> {
                CachedObject object = store.get(namespace, info.name(), orEmpty(exchange.queryParameter("resourceVersion")));
                writeCached(exchange, store, object, Representation.negotiate(exchange.header("accept"), false));
            }
            case "list" -> {
                ListResult result = store.list(namespace, listOptions(exchange, info));
                writeList(exchange, store, result, Representation.negotiate(exchange.header("accept"), true));
            }
            case "watch" -> watch(exchange, info, store, namespace);
            case "create" -> {
                if (!info.name().isEmpty()) {
                    throw StatusException.methodNotSupported(type.gvk().group(), type.plural(), "create");
                }
                Decoded body = decodeBody(exchange, type);
                WriteResult result = store.create(namespace, body.object(), writeContext(exchange, user, "CreateOptions"));
                addWarnings(exchange, body.warnings(), result.warnings());
                writeResult(exchange, 201, store, result, Representation.negotiate(exchange.header("accept"), false));
            }
            case "update" -> {
                Decoded body = decodeBody(exchange, type);
                WriteResult result = store.update(namespace, info.name(), "", current -> body.object(), writeContext(exchange, user, "UpdateOptions"));
                addWarnings(exchange, body.warnings(), result.warnings());
                writeResult(exchange, result.created() ? 201 : 200, store, result, Representation.negotiate(exchange.header("accept"), false));
            }
            case "patch" -> {
                PatchRequest patch = patchRequest(exchange);
                if (patch.isApply()) {
                    serverSideApply(exchange, info, user, store, namespace, "", patch);
                    return;
                }
                List<String> warnings = new ArrayList<>();
                WriteResult result = store.update(namespace, info.name(), "", current -> {
                    if (current == null) {
                        throw StatusException.notFound(type.gvk().group(), type.plural(), info.name());
                    }
                    ObjectNode patched = applyPatch(type, current, patch);
                    warnings.clear();
                    warnings.addAll(checkFields(fieldValidation(exchange), type, patched, List.of()));
                    return patched;
                }, writeContext(exchange, user, "PatchOptions"));
                addWarnings(exchange, warnings, result.warnings());
                writeResult(exchange, 200, store, result, Representation.negotiate(exchange.header("accept"), false));
            }
            case "delete" -> delete(exchange, info, user, store, namespace);
            case "deletecollection" -> {
                DeleteOptions options = deleteOptions(exchange);
                ListResult deleted = store.deleteCollection(namespace, listOptions(exchange, info), options, new OperationContext(user, dryRun(exchange), true));
                // As upstream, in the representation the client asks for: a metadata client gets PartialObjectMetadataList.
                writeList(exchange, store, deleted, Representation.negotiate(exchange.header("accept"), true));
            }
            default -> throw StatusException.methodNotSupported(type.gvk().group(), type.plural(), info.verb());
        }
    }

    private void delete(HttpExchange exchange, RequestInfo info, UserInfo user, GenericStore store, String namespace) throws IOException {
        DeleteOptions options = deleteOptions(exchange);
        WriteResult result = store.delete(namespace, info.name(), options, new OperationContext(user, dryRun(exchange), true));
        ResourceType type = store.type();
        if (result.deleted() && !store.definition().strategy().returnDeletedObject()) {
            ObjectNode status = Json.object();
            status.put("kind", "Status");
            status.put("apiVersion", "v1");
            status.putObject("metadata");
            status.put("status", "Success");
            ObjectNode details = status.putObject("details");
            details.put("name", info.name());
            if (!type.gvk().group().isEmpty()) {
                details.put("group", type.gvk().group());
            }
            details.put("kind", type.plural());
            details.put("uid", ObjectMetadata.text(result.object(), "uid"));
            Responses.write(exchange, 200, status, Representation.negotiate(exchange.header("accept"), false).yaml());
            return;
        }
        int code = !result.deleted() && Boolean.FALSE.equals(options.orphanDependents()) ? 202 : 200;
        writeObject(exchange, code, store, result.object(), Representation.negotiate(exchange.header("accept"), false));
    }

    private void handleSubresource(HttpExchange exchange, RequestInfo info, UserInfo user, GenericStore store, String namespace) throws IOException {
        ResourceType type = store.type();
        String subresource = info.subresource();
        String qualified = type.plural() + "/" + subresource;
        ResourceStrategy rules = store.definition().subresourceStrategies().get(subresource);
        if (rules != null) {
            switch (info.verb()) {
                case "get" -> writeCached(exchange, store, store.get(namespace, info.name(), orEmpty(exchange.queryParameter("resourceVersion"))),
                        Representation.negotiate(exchange.header("accept"), false));
                case "update" -> {
                    Decoded body = decodeBody(exchange, type);
                    WriteResult result = store.update(namespace, info.name(), subresource, current -> body.object(), writeContext(exchange, user, "UpdateOptions"));
                    addWarnings(exchange, body.warnings(), result.warnings());
                    writeResult(exchange, 200, store, result, Representation.negotiate(exchange.header("accept"), false));
                }
                case "patch" -> {
                    PatchRequest patch = patchRequest(exchange);
                    if (patch.isApply()) {
                        serverSideApply(exchange, info, user, store, namespace, subresource, patch);
                        return;
                    }
                    WriteResult result = store.update(namespace, info.name(), subresource, current -> {
                        if (current == null) {
                            throw StatusException.notFound(type.gvk().group(), type.plural(), info.name());
                        }
                        return applyPatch(type, current, patch);
                    }, writeContext(exchange, user, "PatchOptions"));
                    addWarnings(exchange, List.of(), result.warnings());
                    writeResult(exchange, 200, store, result, Representation.negotiate(exchange.header("accept"), false));
                }
                default -> throw StatusException.methodNotSupported(type.gvk().group(), qualified, info.verb());
            }
            return;
        }
        SubresourceHandler handler = store.definition().subresourceHandlers().stream()
                .filter(candidate -> candidate.subresource().equals(subresource))
                .findFirst()
                .orElseThrow(Responses::notFound);
        SubresourceHandler.Request request = new SubresourceHandler.Request(store, namespace, info.name(), user, dryRun(exchange));
        if (handler.streaming()) {
            handler.connect(request, exchange);
            return;
        }
        boolean yaml = Representation.negotiate(exchange.header("accept"), false).yaml();
        switch (info.verb()) {
            case "get" -> Responses.write(exchange, 200, handler.get(request), yaml);
            case "create" -> Responses.write(exchange, 201, handler.create(request, decodeSubresourceBody(exchange, handler)), yaml);
            case "update" -> {
                SubresourceHandler.Request tracked = withOwnership(request, writeContext(exchange, user, "UpdateOptions"));
                Responses.write(exchange, 200, handler.update(tracked, decodeSubresourceBody(exchange, handler)), yaml);
            }
            case "patch" -> {
                PatchRequest patch = patchRequest(exchange);
                if (patch.isApply()) {
                    ApplyOptions options = applyOptions(exchange, patch);
                    ObjectNode applied = handler.apply(request, (ObjectNode) patch.patch(), options.manager(), options.force());
                    addWarnings(exchange, options.warnings(), List.of());
                    Responses.write(exchange, 200, applied, yaml);
                    return;
                }
                SubresourceHandler.Request tracked = withOwnership(request, writeContext(exchange, user, "PatchOptions"));
                ObjectNode current = handler.get(request);
                ObjectNode patched = applyPatch(type, current, patch);
                Responses.write(exchange, 200, handler.update(tracked, patched), yaml);
            }
            default -> throw StatusException.methodNotSupported(type.gvk().group(), qualified, info.verb());
        }
    }

    private void handleCreateOnly(HttpExchange exchange, RequestInfo info, UserInfo user, CreateOnlyResource resource) throws IOException {
        ResourceType type = resource.type();
        if (!info.verb().equals("create")) {
            throw StatusException.methodNotSupported(type.gvk().group(), type.plural(), info.verb());
        }
        if (type.namespaced() == info.namespace().isEmpty()) {
            throw Responses.notFound();
        }
        Decoded body = decodeBody(exchange, type);
        checkKind(body.object(), type.gvk().apiVersion(), type.kind());
        ObjectNode result = resource.create(body.object(), user, info.namespace());
        addWarnings(exchange, body.warnings(), List.of());
        Responses.write(exchange, 201, result, Representation.negotiate(exchange.header("accept"), false).yaml());
    }

    // ---- watch -----------------------------------------------------------------------------------------

    private void watch(HttpExchange exchange, RequestInfo info, GenericStore store, String namespace) throws IOException {
        ListOptions options = listOptions(exchange, info);
        Representation representation = Representation.negotiate(exchange.header("accept"), false);
        long timeoutSeconds = options.timeoutSeconds() > 0
                ? options.timeoutSeconds()
                : MIN_WATCH_TIMEOUT_SECONDS + ThreadLocalRandom.current().nextLong(MIN_WATCH_TIMEOUT_SECONDS);
        String contentType = representation.kind() == Representation.Kind.OBJECT ? "application/json" : representation.contentType();
        WatchCache.Watcher watcher;
        try {
            watcher = store.watch(namespace, options);
        } catch (StatusException e) {
            if (e.code() != 410) {
                throw e;
            }
            try (OutputStream out = exchange.startStream(200, contentType)) {
                out.write(eventLine("ERROR", Json.write(e.toStatus())));
                out.flush();
            }
            return;
        }
        longRunning.started(info);
        long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        Function<WatchItem, byte[]> encoder = item -> switch (item) {
            case WatchItem.Event event -> encodeEvent(store, event, representation);
            case WatchItem.Bookmark bookmark -> options.allowWatchBookmarks() ? eventLine("BOOKMARK", bookmark(store.type(), bookmark)) : null;
            case WatchItem.Ended end -> null;
        };
        try {
            Optional<HttpExchange.NonBlockingStream> stream = exchange.startNonBlockingStream(200, contentType);
            WatchSchedule schedule = new WatchSchedule(deadline, options.allowWatchBookmarks() ? bookmarkInterval : null);
            if (stream.isPresent()) {
                new WatchSender(watcher, stream.get(), encoder).serve(schedule);
            } else {
                serveBlocking(exchange.startStream(200, contentType), watcher, encoder, schedule);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // The client went away; nothing to answer.
        } finally {
            watcher.close();
            longRunning.ended(info);
        }
    }

    /**
     * Serves a watch over a stream that blocks while it writes, on this thread, which waits for each item; the
     * schedule's timer queues the bookmarks and the end at the deadline.
     */
    private void serveBlocking(OutputStream stream, WatchCache.Watcher watcher, Function<WatchItem, byte[]> encoder, WatchSchedule schedule)
            throws IOException, InterruptedException {
        try (OutputStream out = stream; WatchSchedule.Timed timed = schedule.enqueueOnTime(watcher)) {
            out.flush();
            while (true) {
                WatchItem item = watcher.take();
                boolean ended = false;
                do {
                    if (item instanceof WatchItem.Ended) {
                        ended = true;
                    } else {
                        byte[] line = encoder.apply(item);
                        if (line != null) {
                            writeLine(out, line);
                        }
                    }
                    item = ended ? null : watcher.pollNow();
                } while (item != null);
                out.flush();
                if (ended) {
                    break;
                }
            }
        }
    }

    /** Each line is made for the stream or shared by the change's watchers, and never changed after. */
    private static void writeLine(OutputStream out, byte[] line) throws IOException {
        if (out instanceof BulkOutputStream bulk) {
            bulk.writeUnchanging(line);
        } else {
            out.write(line);
        }
    }

    /**
     * An event's line. Every watcher of a change in plain JSON gets the same bytes, so the line is kept in the event
     * the watchers of the change share: a change to a thousand watchers is encoded once.
     */
    private byte[] encodeEvent(GenericStore store, WatchItem.Event event, Representation representation) {
        if (representation.kind() != Representation.Kind.OBJECT) {
            return eventLine(event.type().name(), encodeWatchObject(store, event.object(), representation));
        }
        return event.jsonLine(shared -> eventLine(shared.type().name(), shared.object().json()));
    }

    private static byte[] eventLine(String type, byte[] object) {
        // One array of the exact size: a growing buffer copied out again doubled the copying and garbage of the lines a
        // fan-out encodes per watcher (tables, bookmarks); the head of each event type is encoded once.
        byte[] head = EVENT_HEADS.computeIfAbsent(type, name -> ("{\"type\":\"" + name + "\",\"object\":").getBytes(StandardCharsets.UTF_8));
        byte[] line = new byte[head.length + object.length + EVENT_END.length];
        System.arraycopy(head, 0, line, 0, head.length);
        System.arraycopy(object, 0, line, head.length, object.length);
        System.arraycopy(EVENT_END, 0, line, head.length + object.length, EVENT_END.length);
        return line;
    }

    private byte[] encodeWatchObject(GenericStore store, CachedObject object, Representation representation) {
        return switch (representation.kind()) {
            case OBJECT -> object.json();
            case TABLE -> Json.write(TableConverter.table(store.definition().strategy(), List.of(object.toObjectNode()),
                    TableConverter.IncludeObject.METADATA, representation.tableVersion(), null));
            case PARTIAL_OBJECT_METADATA -> Json.write(TableConverter.partialObjectMetadata(object.toObjectNode(), representation.tableVersion()));
        };
    }

    private static byte[] bookmark(ResourceType type, WatchItem.Bookmark bookmark) {
        ObjectNode object = Json.object();
        object.put("kind", type.kind());
        object.put("apiVersion", type.gvk().apiVersion());
        ObjectNode metadata = object.putObject("metadata");
        metadata.put("resourceVersion", Long.toString(bookmark.revision()));
        metadata.putNull("creationTimestamp");
        if (bookmark.initialEventsEnd()) {
            metadata.putObject("annotations").put("k8s.io/initial-events-end", "true");
        }
        return Json.write(object);
    }

    // ---- encoding --------------------------------------------------------------------------------------

    /** Writes a cached object, as its cached bytes when the client wants plain JSON. */
    private void writeCached(HttpExchange exchange, GenericStore store, CachedObject object, Representation representation) throws IOException {
        if (representation.kind() == Representation.Kind.OBJECT && !representation.yaml()) {
            exchange.respond(200, "application/json", object.json());
            return;
        }
        writeObject(exchange, 200, store, object.toObjectNode(), representation);
    }

    /** Writes a write's outcome, with the JSON the store already encoded when the client wants plain JSON. */
    private void writeResult(HttpExchange exchange, int status, GenericStore store, WriteResult result, Representation representation) throws IOException {
        if (representation.kind() == Representation.Kind.OBJECT && !representation.yaml() && result.json().isPresent()) {
            exchange.respond(status, "application/json", result.json().get());
            return;
        }
        writeObject(exchange, status, store, result.object(), representation);
    }

    private void writeObject(HttpExchange exchange, int status, GenericStore store, ObjectNode object, Representation representation) throws IOException {
        switch (representation.kind()) {
            case OBJECT -> Responses.write(exchange, status, object, representation.yaml());
            case TABLE -> {
                ObjectNode metadata = Json.object();
                metadata.put("resourceVersion", ObjectMetadata.text(object, "resourceVersion"));
                TableConverter.IncludeObject include = TableConverter.includeObject(exchange.queryParameter("includeObject"));
                exchange.respond(status, representation.contentType(),
                        Json.write(TableConverter.table(store.definition().strategy(), List.of(object), include, representation.tableVersion(), metadata)));
            }
            case PARTIAL_OBJECT_METADATA -> exchange.respond(status, representation.contentType(),
                    Json.write(TableConverter.partialObjectMetadata(object, representation.tableVersion())));
        }
    }

    private void writeList(HttpExchange exchange, GenericStore store, ListResult result, Representation representation) throws IOException {
        ObjectNode listMetadata = Json.object();
        listMetadata.put("resourceVersion", Long.toString(result.revision()));
        if (!result.continueToken().isEmpty()) {
            listMetadata.put("continue", result.continueToken());
        }
        if (result.remainingItemCount() != null) {
            listMetadata.put("remainingItemCount", result.remainingItemCount());
        }
        List<CachedObject> items = result.items();
        ResourceType type = store.type();
        switch (representation.kind()) {
            case OBJECT -> {
                if (representation.yaml()) {
                    // Streamed, each item parsed only as it is written: a long list is never held parsed at once.
                    ObjectNode list = Json.object();
                    list.put("kind", type.listKind());
                    list.put("apiVersion", type.gvk().apiVersion());
                    list.set("metadata", listMetadata);
                    Iterator<ObjectNode> parsed = items.stream().map(CachedObject::toObjectNode).iterator();
                    try (OutputStream out = new BufferedOutputStream(exchange.startStream(200, "application/yaml"), YAML_BUFFER_BYTES)) {
                        Codec.writeYamlList(out, list, parsed);
                    }
                    return;
                }
                ListBody body = ListBody.of(type, listMetadata, items);
                exchange.respond(200, "application/json", body.length(), body);
            }
            case TABLE -> {
                // Each row is encoded as soon as it is made: a long list is never held parsed all at once.
                TableConverter.IncludeObject include = TableConverter.includeObject(exchange.queryParameter("includeObject"));
                ResourceStrategy strategy = store.definition().strategy();
                String version = representation.tableVersion();
                List<byte[]> rows = new ArrayList<>(items.size());
                items.forEach(item -> rows.add(Json.write(TableConverter.row(strategy, item.toObjectNode(), include, version))));
                ListBody body = new ListBody(TableConverter.envelope(strategy, version, listMetadata), "rows", rows);
                exchange.respond(200, representation.contentType(), body.length(), body);
            }
            case PARTIAL_OBJECT_METADATA -> {
                // As the table's rows.
                String version = representation.tableVersion();
                List<byte[]> partials = new ArrayList<>(items.size());
                items.forEach(item -> partials.add(Json.write(TableConverter.partialObjectMetadata(item.toObjectNode(), version))));
                ListBody body = ListBody.list("PartialObjectMetadataList", "meta.k8s.io/" + version, listMetadata, partials);
                exchange.respond(200, "application/json;as=PartialObjectMetadataList;v=" + version + ";g=meta.k8s.io", body.length(), body);
            }
        }
    }

    // ---- decoding --------------------------------------------------------------------------------------

    private record Decoded(ObjectNode object, List<String> warnings) {}

    private Decoded decodeBody(HttpExchange exchange, ResourceType type) throws IOException {
        String validation = fieldValidation(exchange);
        Codec.Decoded decoded = parseBody(exchange, exchange.body(), type.kind());
        ObjectNode object = (ObjectNode) decoded.value();
        return new Decoded(object, checkFields(validation, type, object, decoded.duplicateFields()));
    }

    private ObjectNode decodeSubresourceBody(HttpExchange exchange, SubresourceHandler handler) throws IOException {
        String validation = fieldValidation(exchange);
        Codec.Decoded decoded = parseBody(exchange, exchange.body(), handler.kind());
        if (validation.equals("Strict") && !decoded.duplicateFields().isEmpty()) {
            throw StatusException.badRequest(strictDecodingMessage(decoded.duplicateFields()));
        }
        ObjectNode body = (ObjectNode) decoded.value();
        checkKind(body, handler.apiVersion(), handler.kind());
        return body;
    }

    private static void checkKind(ObjectNode body, String apiVersion, String kind) {
        String bodyKind = body.path("kind").asText("");
        String bodyVersion = body.path("apiVersion").asText("");
        if (!bodyVersion.isEmpty() && !bodyVersion.equals(apiVersion)) {
            throw StatusException.badRequest("the API version in the data (" + bodyVersion + ") does not match the expected API version (" + apiVersion + ")");
        }
        if (!bodyKind.isEmpty() && !bodyKind.equals(kind)) {
            throw StatusException.badRequest("the object provided is unrecognized (must be of type " + kind + "): kind " + bodyKind + " does not match");
        }
    }

    /** Decodes a body that must hold one object; the value of the result is always an {@link ObjectNode}. */
    private static Codec.Decoded parseBody(HttpExchange exchange, byte[] body, String expectedKind) {
        String contentType = mediaType(exchange.header("content-type"));
        if (contentType.equals(KubernetesProtobuf.MEDIA_TYPE)) {
            // kubectl's typed commands (create configmap, create token, auth can-i …) send protobuf and never fall back.
            return new Codec.Decoded(KubernetesProtobuf.decode(body), List.of());
        }
        Codec.Format format = switch (contentType) {
            case "", "application/json", "*/*" -> Codec.Format.JSON;
            case "application/yaml", "application/x-yaml", "text/yaml" -> Codec.Format.YAML;
            default -> throw StatusException.unsupportedMediaType(contentType);
        };
        return Codec.decodeObject(body, format, expectedKind);
    }

    private static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    private static String fieldValidation(HttpExchange exchange) {
        String value = exchange.queryParameter("fieldValidation");
        if (value == null || value.isEmpty()) {
            return "Warn";
        }
        return switch (value) {
            case "Ignore", "Warn", "Strict" -> value;
            default -> throw StatusException.badRequest("fieldValidation: Unsupported value: \"" + value + "\": supported values: \"Ignore\", \"Strict\", \"Warn\"");
        };
    }

    /**
     * Duplicated and unknown fields: a 400 naming them all for Strict, one warning each for Warn, nothing for
     * Ignore. Unknown fields are only looked for with a detector.
     */
    private List<String> checkFields(String validation, ResourceType type, ObjectNode object, List<String> duplicateFields) {
        if (validation.equals("Ignore")) {
            return List.of();
        }
        List<String> problems = new ArrayList<>(duplicateFields);
        if (unknownFields.isPresent()) {
            unknownFields.get().unknownFields(type, object).stream().map(UnknownFields::message).forEach(problems::add);
        }
        if (validation.equals("Strict") && !problems.isEmpty()) {
            throw StatusException.badRequest(strictDecodingMessage(problems));
        }
        return List.copyOf(problems);
    }

    /** Upstream's 400 for {@code fieldValidation=Strict}: {@code strict decoding error: duplicate field "a", unknown field "b"}. */
    private static String strictDecodingMessage(List<String> problems) {
        return "strict decoding error: " + String.join(", ", problems);
    }

    private static boolean dryRun(HttpExchange exchange) {
        List<String> values = exchange.query().get("dryRun");
        if (values == null || values.isEmpty()) {
            return false;
        }
        for (String value : values) {
            if (!value.equals("All")) {
                throw StatusException.badRequest("dryRun: Unsupported value: \"" + value + "\": supported values: \"All\"");
            }
        }
        return true;
    }

    /**
     * The context of a create, update or patch: its changes are recorded for the {@code fieldManager}, or for the
     * manager upstream derives from the User-Agent when none is given.
     *
     * @param optionsKind the options kind upstream names in the 422 for a malformed manager, e.g. {@code CreateOptions}
     */
    private static OperationContext writeContext(HttpExchange exchange, UserInfo user, String optionsKind) {
        String manager = orEmpty(exchange.queryParameter("fieldManager"));
        FieldErrors errors = FieldManagers.validate(manager);
        if (!errors.isEmpty()) {
            throw StatusException.invalid("meta.k8s.io", optionsKind, "", errors);
        }
        String effective = manager.isEmpty() ? FieldManagers.fromUserAgent(orEmpty(exchange.header("user-agent"))) : manager;
        return new OperationContext(user, dryRun(exchange), true, new OperationContext.FieldOwnership.Updated(effective));
    }

    private static void addWarnings(HttpExchange exchange, List<String> first, List<String> second) {
        for (List<String> warnings : List.of(first, second)) {
            for (String warning : warnings) {
                exchange.addHeader("Warning", "299 - \"" + warning.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
            }
        }
    }

    private record PatchRequest(String contentType, JsonNode patch, List<String> duplicateFields) {
        boolean isApply() {
            return contentType.equals(APPLY_PATCH);
        }
    }

    private PatchRequest patchRequest(HttpExchange exchange) throws IOException {
        String contentType = mediaType(exchange.header("content-type"));
        byte[] body = exchange.body();
        PatchRequest request = switch (contentType) {
            case "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json" -> {
                try {
                    yield new PatchRequest(contentType, Json.mapper().readTree(body), List.of());
                } catch (IOException e) {
                    throw StatusException.badRequest("error decoding patch: " + e.getMessage());
                }
            }
            case APPLY_PATCH -> {
                Codec.Decoded decoded;
                try {
                    decoded = Codec.decode(body, Codec.Format.YAML);
                } catch (RuntimeException e) {
                    throw StatusException.badRequest("error decoding YAML: " + e.getMessage());
                }
                JsonNode value = decoded.value().isNull() ? Json.object() : decoded.value();
                if (!value.isObject()) {
                    throw StatusException.badRequest("error decoding YAML: json: cannot unmarshal " + (value.isArray() ? "array" : value.isNumber() ? "number" : value.isBoolean() ? "bool" : "string")
                            + " into Go value of type map[string]interface {}");
                }
                yield new PatchRequest(contentType, value, decoded.duplicateFields());
            }
            default -> throw StatusException.unsupportedMediaType(contentType.isEmpty() ? "\"\"" : contentType);
        };
        if (!request.isApply() && exchange.queryParameter("force") != null) {
            throw StatusException.invalid("meta.k8s.io", "PatchOptions", "",
                    new FieldErrors().add(FieldError.forbidden("force", "may not be specified for non-apply patch")));
        }
        return request;
    }

    /**
     * PATCH with {@code application/apply-patch+yaml}: server-side apply of the body for the {@code fieldManager},
     * creating the object when it does not exist, as upstream's apply patcher.
     */
    private void serverSideApply(HttpExchange exchange, RequestInfo info, UserInfo user, GenericStore store, String namespace, String subresource,
            PatchRequest patch) throws IOException {
        ApplyOptions options = applyOptions(exchange, patch);
        String manager = options.manager();
        boolean force = options.force();
        ObjectNode configuration = (ObjectNode) patch.patch();
        OperationContext context = new OperationContext(user, dryRun(exchange), true, new OperationContext.FieldOwnership.Applied(manager));
        WriteResult result = store.update(namespace, info.name(), subresource,
                current -> store.applyConfiguration(current, configuration.deepCopy(), subresource, manager, force), context);
        addWarnings(exchange, options.warnings(), result.warnings());
        writeObject(exchange, result.created() ? 201 : 200, store, result.object(), Representation.negotiate(exchange.header("accept"), false));
    }

    /** The options of an apply patch: its manager, whether it forces, and warnings about duplicate fields. */
    private record ApplyOptions(String manager, boolean force, List<String> warnings) {}

    /** Validates an apply patch's field manager and fieldValidation, as upstream's apply patcher. */
    private static ApplyOptions applyOptions(HttpExchange exchange, PatchRequest patch) {
        String manager = orEmpty(exchange.queryParameter("fieldManager"));
        FieldErrors errors = new FieldErrors();
        if (manager.isEmpty()) {
            errors.add(FieldError.required("fieldManager", "is required for apply patch"));
        }
        errors.addAll(FieldManagers.validate(manager));
        if (!errors.isEmpty()) {
            throw StatusException.invalid("meta.k8s.io", "PatchOptions", "", errors);
        }
        boolean force = parseForce(exchange.queryParameter("force"));
        String validation = fieldValidation(exchange);
        List<String> warnings = List.of();
        if (!validation.equals("Ignore") && !patch.duplicateFields().isEmpty()) {
            if (validation.equals("Strict")) {
                throw StatusException.badRequest("error strict decoding YAML: " + String.join(", ", patch.duplicateFields()));
            }
            warnings = patch.duplicateFields();
        }
        return new ApplyOptions(manager, force, warnings);
    }

    private static SubresourceHandler.Request withOwnership(SubresourceHandler.Request request, OperationContext context) {
        return new SubresourceHandler.Request(request.parent(), request.namespace(), request.name(), request.user(), request.dryRun(),
                context.fieldOwnership());
    }

    private static boolean parseForce(String value) {
        if (value == null || value.isEmpty()) {
            return false;
        }
        return switch (value) {
            case "true", "1", "t", "T", "TRUE", "True" -> true;
            case "false", "0", "f", "F", "FALSE", "False" -> false;
            default -> throw StatusException.badRequest("force: Invalid value: \"" + value + "\": must be a boolean");
        };
    }

    /**
     * @param current this request's own copy of the object (a store's update hands one, a subresource's GET builds one),
     *     which a merge patch changes in place
     */
    private ObjectNode applyPatch(ResourceType type, ObjectNode current, PatchRequest patch) {
        JsonNode result = switch (patch.contentType()) {
            case "application/json-patch+json" -> Patches.jsonPatch(current, patch.patch());
            case "application/merge-patch+json" -> Patches.mergePatchInPlace(current, patch.patch());
            case "application/strategic-merge-patch+json" -> {
                if (!(patch.patch() instanceof ObjectNode patchObject)) {
                    throw StatusException.badRequest("strategic merge patch must be a JSON object");
                }
                yield strategicMergePatcher
                        .orElseThrow(() -> StatusException.unsupportedMediaType(patch.contentType()))
                        .apply(type, current, patchObject);
            }
            default -> throw StatusException.unsupportedMediaType(patch.contentType());
        };
        if (!(result instanceof ObjectNode object)) {
            throw StatusException.badRequest("the patch turned the object into a non-object");
        }
        return object;
    }

    private static ListOptions listOptions(HttpExchange exchange, RequestInfo info) {
        String fieldText = orEmpty(exchange.queryParameter("fieldSelector"));
        LabelSelector labelSelector;
        FieldSelector fieldSelector;
        try {
            fieldSelector = FieldSelector.parse(fieldText);
            if (info.verb().equals("watch") && !info.name().isEmpty() && fieldSelector.requiresExactMatch("metadata.name").isEmpty()) {
                // A watch of one object (/watch/…/name) is a watch with a name field selector, as upstream rewrites it.
                String byName = "metadata.name=" + FieldSelector.escapeValue(info.name());
                fieldSelector = FieldSelector.parse(fieldText.isBlank() ? byName : fieldText + "," + byName);
            }
            labelSelector = LabelSelector.parse(orEmpty(exchange.queryParameter("labelSelector")));
        } catch (SelectorParseException e) {
            throw StatusException.badRequest(e.getMessage());
        }
        String sendInitialEvents = exchange.queryParameter("sendInitialEvents");
        return new ListOptions(
                labelSelector,
                fieldSelector,
                parseLong(exchange.queryParameter("limit"), "limit"),
                orEmpty(exchange.queryParameter("continue")),
                orEmpty(exchange.queryParameter("resourceVersion")),
                orEmpty(exchange.queryParameter("resourceVersionMatch")),
                "true".equals(exchange.queryParameter("allowWatchBookmarks")),
                sendInitialEvents == null || sendInitialEvents.isEmpty() ? null : Boolean.valueOf(sendInitialEvents),
                parseLong(exchange.queryParameter("timeoutSeconds"), "timeoutSeconds"));
    }

    private static DeleteOptions deleteOptions(HttpExchange exchange) throws IOException {
        byte[] body = exchange.body();
        DeleteOptions fromBody = DeleteOptions.DEFAULT;
        if (body.length > 0) {
            ObjectNode node = (ObjectNode) parseBody(exchange, body, "DeleteOptions").value();
            fromBody = DeleteOptions.fromJson(node);
        }
        String grace = exchange.queryParameter("gracePeriodSeconds");
        String policy = exchange.queryParameter("propagationPolicy");
        String orphan = exchange.queryParameter("orphanDependents");
        return new DeleteOptions(
                grace != null ? Long.valueOf(parseLong(grace, "gracePeriodSeconds")) : fromBody.gracePeriodSeconds(),
                fromBody.preconditionUid(),
                fromBody.preconditionResourceVersion(),
                policy != null ? policy : fromBody.propagationPolicy(),
                orphan != null ? Boolean.valueOf(orphan) : fromBody.orphanDependents());
    }

    private static long parseLong(String value, String name) {
        if (value == null || value.isEmpty()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value));
        } catch (NumberFormatException e) {
            throw StatusException.badRequest(name + ": Invalid value: \"" + value + "\": must be an integer");
        }
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
