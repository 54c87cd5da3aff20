package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.codec.Timestamps;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.selection.FieldSelector;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.ObjectMetaValidation;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.Operation;
import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.RangeResult;
import io.k4j.storage.StorageException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage of one served resource, as upstream's generic registry store: all create, update, delete,
 * conflict and resourceVersion mechanics live here, the resource's {@link ResourceStrategy} contributes its
 * rules, and a {@link WatchCache} serves reads and watches from memory.
 *
 * <p>Objects are stored as JSON without {@code metadata.resourceVersion}; the key's mod revision is the
 * resourceVersion. Writes run: defaults, mutating admission, strategy prepare and validation, validating
 * admission, storage; a rejection stores nothing.
 *
 * <p>Thread-safe.
 */
public final class GenericStore implements ObjectStore, AutoCloseable {
    /** Deletes of one deletecollection in flight at once. */
    private static final int DELETE_COLLECTION_WORKERS = 16;

    private static final Logger LOG = LoggerFactory.getLogger(GenericStore.class);
    static final String ORPHAN_FINALIZER = "orphan";
    static final String FOREGROUND_FINALIZER = "foregroundDeletion";
    private static final Duration FRESHNESS_WAIT = Duration.ofSeconds(3);
    /** Upstream's message for a list at a compacted resourceVersion. */
    private static final String LIST_TOO_OLD = "The resourceVersion for the provided list is too old.";
    private static final int MAX_UPDATE_ATTEMPTS = 16;
    private static final int GENERATE_NAME_ATTEMPTS = 8;
    private static final String NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    private final ResourceDefinition definition;
    private final ResourceType type;
    private final ResourceStrategy strategy;
    private final KeyValueStore storage;
    private final AdmissionChain admission;
    private final InstantSource clock;
    private final StoreLeases leases;
    private final Optional<VersionConversion> conversion;
    private final String prefix;
    private final WatchCache cache;
    private final Set<String> selectableFields;
    private final FieldOwnershipRecorder fieldOwnership;

    /**
     * @param storage the storage (the same store may back many resources)
     * @param admission the admission plugins applied to API writes
     * @param watchCacheCapacity how many recent events a watch can resume from
     */
    public GenericStore(ResourceDefinition definition, KeyValueStore storage, AdmissionChain admission, InstantSource clock, int watchCacheCapacity) {
        this.definition = requireNonNull(definition, "definition is null");
        this.strategy = definition.strategy();
        this.type = strategy.type();
        this.storage = requireNonNull(storage, "storage is null");
        this.admission = requireNonNull(admission, "admission is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.leases = new StoreLeases(storage, clock);
        this.conversion = definition.conversion();
        this.prefix = conversion.map(c -> StorageKeys.resourcePrefix(c.storageResource())).orElseGet(() -> StorageKeys.resourcePrefix(type));
        this.cache = new WatchCache(prefix, storage, this::decode, watchCacheCapacity, Math.max(watchCacheCapacity, 1024), strategy.cachesObjects());
        Set<String> fields = new HashSet<>(Set.of("metadata.name", "metadata.namespace"));
        fields.addAll(strategySelectableFieldNames(strategy));
        this.selectableFields = Set.copyOf(fields);
        this.fieldOwnership = new FieldOwnershipRecorder(type.gvk(), definition, clock);
    }

    /** Loads the watch cache; call once before serving. */
    public void start() {
        cache.start();
        if (definition.writeHooks() != WriteHooks.NONE) {
            definition.writeHooks().initialize(list(""));
        }
    }

    @Override
    public void close() {
        cache.close();
    }

    @Override
    public ResourceType type() {
        return type;
    }

    public ResourceDefinition definition() {
        return definition;
    }

    public WatchCache cache() {
        return cache;
    }

    /** The storage key prefix, e.g. {@code /registry/pods/}. */
    public String keyPrefix() {
        return prefix;
    }

    // ---- reads -----------------------------------------------------------------------------------------

    @Override
    public ObjectNode get(String namespace, String name) {
        return get(namespace, name, "").copyOfParsed();
    }

    /** GET with upstream's resourceVersion semantics: empty = most recent, "0" = any, N = not older than N. */
    public CachedObject get(String namespace, String name, String resourceVersion) {
        String key = key(namespace, name);
        if (!cache.keepsObjects()) {
            if (!resourceVersion.isEmpty() && !resourceVersion.equals("0")) {
                checkNotTooLarge(parseResourceVersion(resourceVersion));
            }
            return decodeOrNotFound(storage.get(key), name);
        }
        if (resourceVersion.isEmpty()) {
            if (!cache.waitForOwnWrites(FRESHNESS_WAIT)) {
                return decodeOrNotFound(storage.get(key), name);
            }
        } else if (!resourceVersion.equals("0")) {
            long wanted = parseResourceVersion(resourceVersion);
            if (!cache.waitForRevision(wanted, FRESHNESS_WAIT)) {
                checkNotTooLarge(wanted);
                return decodeOrNotFound(storage.get(key), name);
            }
        }
        CachedObject object = cache.get(key);
        if (object == null) {
            throw notFound(name);
        }
        return object;
    }

    private CachedObject decodeOrNotFound(KeyValue keyValue, String name) {
        if (keyValue == null) {
            throw notFound(name);
        }
        return decode(keyValue);
    }

    @Override
    public List<ObjectNode> list(String namespace) {
        ListResult result = list(namespace, ListOptions.EVERYTHING);
        List<ObjectNode> objects = new ArrayList<>(result.items().size());
        for (CachedObject object : result.items()) {
            objects.add(object.copyOfParsed());
        }
        return objects;
    }

    @Override
    public ObjectNode getForReading(String namespace, String name) {
        return get(namespace, name, "").sharedParsed();
    }

    @Override
    public List<ObjectNode> listForReading(String namespace) {
        ListResult result = list(namespace, ListOptions.EVERYTHING);
        List<ObjectNode> objects = new ArrayList<>(result.items().size());
        for (CachedObject object : result.items()) {
            objects.add(object.sharedParsed());
        }
        return objects;
    }

    /**
     * LIST with upstream's selector, paging and resourceVersion semantics. Pages are read from the watch cache when it
     * holds the state asked for (as upstream's cache serves them from its snapshots), else from storage.
     */
    public ListResult list(String namespace, ListOptions options) {
        validateListOptions(options, false);
        Predicate<CachedObject> filter = filter(namespace, options);
        String keyPrefix = StorageKeys.namespacePrefix(prefix, namespace);
        if (!cache.keepsObjects()) {
            return listUncached(keyPrefix, options, filter);
        }
        String resourceVersion = options.resourceVersion();
        if (!options.continueToken().isEmpty()) {
            ContinueToken token = ContinueToken.decode(options.continueToken());
            String startKey = prefix + token.startKey();
            if (token.revision() < storage.compactedRevision()) {
                throw continueExpired();
            }
            Optional<WatchCache.Page> page = cache.page(token.revision(), keyPrefix, startKey, options.limit() > 0 ? options.limit() : Long.MAX_VALUE, filter);
            if (page.isPresent()) {
                return toListResult(page.get(), options);
            }
            return listFromStorage(keyPrefix, startKey, token.revision(), options, filter, true);
        }
        boolean exact = ListOptions.EXACT.equals(options.resourceVersionMatch());
        if (options.limit() > 0 && !resourceVersion.equals("0")) {
            long revision = resourceVersion.isEmpty() ? 0 : parseResourceVersion(resourceVersion);
            if (revision > 0 ? readsExactRevision(options) : exact) {
                checkNotCompacted(revision);
                Optional<WatchCache.Page> page = cache.page(revision, keyPrefix, "", options.limit(), filter);
                return page.isPresent() ? toListResult(page.get(), options) : listFromStorage(keyPrefix, "", revision, options, filter, false);
            }
            boolean fresh = revision == 0 ? cache.waitForOwnWrites(FRESHNESS_WAIT) : cache.waitForRevision(revision, FRESHNESS_WAIT);
            if (!fresh) {
                if (revision > 0) {
                    checkNotTooLarge(revision);
                }
                return listFromStorage(keyPrefix, "", 0, options, filter, false);
            }
            return toListResult(cache.page(0, keyPrefix, "", options.limit(), filter).orElseThrow(), options);
        }
        if (resourceVersion.isEmpty()) {
            if (!cache.waitForOwnWrites(FRESHNESS_WAIT)) {
                return listFromStorage(keyPrefix, "", 0, options, filter, false);
            }
        } else if (!resourceVersion.equals("0")) {
            long wanted = parseResourceVersion(resourceVersion);
            if (exact) {
                if (cache.revision() != wanted) {
                    return listFromStorage(keyPrefix, "", wanted, options, filter, false);
                }
                checkNotCompacted(wanted);
            } else if (!cache.waitForRevision(wanted, FRESHNESS_WAIT)) {
                checkNotTooLarge(wanted);
                return listFromStorage(keyPrefix, "", 0, options, filter, false);
            }
        }
        WatchCache.Snapshot snapshot = cache.list(keyPrefix, filter);
        return new ListResult(snapshot.revision(), snapshot.items(), "", null);
    }

    /**
     * An exact read at a revision storage has compacted away answers 410 as storage would, even where the cache still
     * holds that state: upstream's cache drops its snapshots below etcd's compaction for the same answer.
     */
    private void checkNotCompacted(long revision) {
        if (revision < storage.compactedRevision()) {
            throw StatusException.expired(LIST_TOO_OLD);
        }
    }

    /**
     * Whether a LIST at a given resourceVersion reads exactly that revision: when asked to, or when it is paged and no
     * match is given (upstream's legacy behaviour).
     */
    private static boolean readsExactRevision(ListOptions options) {
        return ListOptions.EXACT.equals(options.resourceVersionMatch()) || (options.limit() > 0 && options.resourceVersionMatch().isEmpty());
    }

    /** LIST of a resource whose cache keeps no objects: from storage, as upstream's etcd store serves it. */
    private ListResult listUncached(String keyPrefix, ListOptions options, Predicate<CachedObject> filter) {
        if (!options.continueToken().isEmpty()) {
            ContinueToken token = ContinueToken.decode(options.continueToken());
            return listFromStorage(keyPrefix, prefix + token.startKey(), token.revision(), options, filter, true);
        }
        String resourceVersion = options.resourceVersion();
        long revision = 0;
        if (!resourceVersion.isEmpty() && !resourceVersion.equals("0")) {
            long wanted = parseResourceVersion(resourceVersion);
            if (readsExactRevision(options)) {
                revision = wanted;
            } else {
                checkNotTooLarge(wanted);
            }
        }
        return listFromStorage(keyPrefix, "", revision, options, filter, false);
    }

    private ListResult toListResult(WatchCache.Page page, ListOptions options) {
        if (page.remainingKeys() == 0) {
            return new ListResult(page.revision(), page.items(), "", null);
        }
        boolean selective = !options.labelSelector().isEverything() || !options.fieldSelector().isEverything();
        String token = new ContinueToken(page.revision(), page.lastKey().substring(prefix.length()) + "\0").encode();
        return new ListResult(page.revision(), page.items(), token, selective ? null : page.remainingKeys());
    }

    private static StatusException continueExpired() {
        return StatusException.expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.");
    }

    private ListResult listFromStorage(String keyPrefix, String startKey, long revision, ListOptions options, Predicate<CachedObject> filter, boolean continuing) {
        long limit = options.limit();
        List<CachedObject> items = new ArrayList<>();
        String nextKey = startKey;
        long readRevision = revision;
        boolean selective = !options.labelSelector().isEverything() || !options.fieldSelector().isEverything();
        Long remaining = null;
        String lastKey = null;
        boolean more;
        try {
            while (true) {
                long pageSize = limit == 0 ? 0 : Math.max(limit - items.size(), selective ? 100 : 1);
                RangeResult page = storage.range(new RangeRequest(keyPrefix, nextKey, pageSize, readRevision));
                readRevision = page.revision();
                for (KeyValue keyValue : page.items()) {
                    if (limit > 0 && items.size() >= limit) {
                        break;
                    }
                    lastKey = keyValue.key();
                    CachedObject object = decode(keyValue);
                    if (filter.test(object)) {
                        items.add(object);
                    }
                }
                boolean consumedPage = page.items().isEmpty() || page.items().get(page.items().size() - 1).key().equals(lastKey);
                more = page.more() || !consumedPage;
                if (!more || (limit > 0 && items.size() >= limit)) {
                    if (more && !selective) {
                        remaining = page.count() - (consumedPage ? page.items().size() : indexAfter(page, lastKey));
                    }
                    break;
                }
                nextKey = lastKey + "\0";
            }
        } catch (StorageException.Compacted e) {
            if (continuing) {
                throw continueExpired();
            }
            throw StatusException.expired(LIST_TOO_OLD);
        } catch (StorageException.FutureRevision e) {
            throw tooLarge(revision);
        }
        String token = more && lastKey != null ? new ContinueToken(readRevision, lastKey.substring(prefix.length()) + "\0").encode() : "";
        return new ListResult(readRevision, items, token, token.isEmpty() ? null : remaining);
    }

    private static long indexAfter(RangeResult page, String lastKey) {
        for (int i = 0; i < page.items().size(); i++) {
            if (page.items().get(i).key().equals(lastKey)) {
                return i + 1;
            }
        }
        return page.items().size();
    }

    /** WATCH with upstream's resourceVersion, bookmark and initial-events semantics. */
    public WatchCache.Watcher watch(String namespace, ListOptions options) {
        validateListOptions(options, true);
        Predicate<CachedObject> filter = filter(namespace, options);
        String keyPrefix = StorageKeys.namespacePrefix(prefix, namespace);
        String resourceVersion = options.resourceVersion();
        boolean sendInitialEvents = Boolean.TRUE.equals(options.sendInitialEvents());
        if (sendInitialEvents || resourceVersion.isEmpty() || resourceVersion.equals("0")) {
            if (resourceVersion.isEmpty()) {
                // A cache that does not catch up in time still serves its state: a watch cannot fall back to storage.
                cache.waitForOwnWrites(FRESHNESS_WAIT);
            }
            if (!sendInitialEvents || resourceVersion.isEmpty() || resourceVersion.equals("0")) {
                return cache.watchWithInitialState(filter, sendInitialEvents, keyPrefix);
            }
            long wanted = parseResourceVersion(resourceVersion);
            if (!cache.waitForRevision(wanted, FRESHNESS_WAIT)) {
                throw tooLarge(wanted);
            }
            return cache.watchWithInitialState(filter, true, keyPrefix);
        }
        long after = parseResourceVersion(resourceVersion);
        return cache.watchFrom(after, filter);
    }

    private void validateListOptions(ListOptions options, boolean watch) {
        FieldErrors errors = new FieldErrors();
        String match = options.resourceVersionMatch();
        if (!match.isEmpty()) {
            if (watch) {
                if (!match.equals(ListOptions.NOT_OLDER_THAN)) {
                    errors.add(FieldError.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
                }
            } else if (!match.equals(ListOptions.NOT_OLDER_THAN) && !match.equals(ListOptions.EXACT)) {
                errors.add(FieldError.notSupported("resourceVersionMatch", match, List.of(ListOptions.EXACT, ListOptions.NOT_OLDER_THAN, "")));
            }
            if (options.resourceVersion().isEmpty() && !watch) {
                errors.add(FieldError.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
            }
            if (!options.continueToken().isEmpty()) {
                errors.add(FieldError.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
            }
            if (match.equals(ListOptions.EXACT) && options.resourceVersion().equals("0")) {
                errors.add(FieldError.forbidden("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
            }
        }
        if (watch && options.sendInitialEvents() != null) {
            if (!options.allowWatchBookmarks()) {
                errors.add(FieldError.forbidden("allowWatchBookmarks", "allowWatchBookmarks required when sendInitialEvents is provided"));
            }
            if (!match.equals(ListOptions.NOT_OLDER_THAN)) {
                errors.add(FieldError.forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
            }
        }
        if (!options.continueToken().isEmpty() && !options.resourceVersion().isEmpty() && !options.resourceVersion().equals("0")) {
            throw StatusException.badRequest("specifying resource version is not allowed when using continue");
        }
        if (!errors.isEmpty()) {
            throw StatusException.invalid("meta.k8s.io", "ListOptions", "", errors);
        }
    }

    /** The selector over namespace, labels and fields that a list or watch applies. */
    public Predicate<CachedObject> filter(String namespace, ListOptions options) {
        LabelSelector labels = options.labelSelector();
        FieldSelector fields = options.fieldSelector();
        if (!fields.isEverything()) {
            fields.firstUnsupportedField(selectableFields).ifPresent(field -> {
                throw StatusException.badRequest("field label not supported: " + field);
            });
        }
        return object -> (namespace.isEmpty() || namespace.equals(object.namespace()))
                && (labels.isEverything() || labels.matches(object.labels()))
                && (fields.isEverything() || fields.matches(object.fields()));
    }

    /** The field names a strategy can select on, learned by asking it about an empty object. */
    private static Set<String> strategySelectableFieldNames(ResourceStrategy strategy) {
        ObjectNode probe = Json.object();
        ObjectMetadata.of(probe);
        try {
            return strategy.selectableFields(probe).keySet();
        } catch (RuntimeException e) {
            // A strategy that cannot describe an empty object supports only the common fields.
            return Set.of();
        }
    }

    // ---- writes ----------------------------------------------------------------------------------------

    @Override
    public ObjectNode create(ObjectNode object) {
        String namespace = type.namespaced() ? ObjectMetadata.text(object, "namespace") : "";
        return create(namespace, object, OperationContext.IN_PROCESS).object();
    }

    /** Creates an object from a request body. */
    public WriteResult create(String namespace, ObjectNode object, OperationContext context) {
        checkKind(object);
        checkNamespace(object, namespace);
        strategy.applyDefaults(object);
        String name = ObjectMetadata.text(object, "name");
        String generateName = ObjectMetadata.text(object, "generateName");
        boolean generated = name.isEmpty() && !generateName.isEmpty();
        for (int attempt = 0; ; attempt++) {
            ObjectNode candidate = attempt == 0 ? object : object.deepCopy();
            if (generated) {
                ObjectMetadata.of(candidate).put("name", generateName(generateName));
            }
            try {
                return createOnce(namespace, candidate, context);
            } catch (StatusException e) {
                if (!generated || e.code() != 409 || attempt + 1 >= GENERATE_NAME_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private WriteResult createOnce(String namespace, ObjectNode object, OperationContext context) {
        ObjectNode metadata = ObjectMetadata.of(object);
        if (!ObjectMetadata.text(object, "resourceVersion").isEmpty()) {
            throw StatusException.internalError("resourceVersion should not be set on objects to be created");
        }
        metadata.put("uid", Uids.random());
        metadata.put("creationTimestamp", now());
        metadata.remove("deletionTimestamp");
        metadata.remove("deletionGracePeriodSeconds");
        fieldOwnership.beforeCreate(object, context);
        String name = ObjectMetadata.text(object, "name");
        if (context.admit()) {
            admission.admit(attributes(Operation.CREATE, "", namespace, name, object, null, context));
            checkNamespace(object, namespace);
        }
        strategy.prepareForCreate(object);
        FieldErrors errors = ObjectMetaValidation.validateCreate(object, type.namespaced(), strategy.nameValidator());
        errors.addAll(strategy.validate(object));
        if (!errors.isEmpty()) {
            throw StatusException.invalid(type.gvk().group(), type.kind(), name, errors);
        }
        WriteTransaction transaction = definition.writeHooks().beginCreate(object, context.dryRun());
        Outcome outcome = Outcome.NOT_STORED;
        try {
            if (context.admit()) {
                admission.validate(attributes(Operation.CREATE, "", namespace, name, object, null, context));
            }
            List<String> warnings = strategy.warningsOnCreate(object);
            if (context.dryRun()) {
                return new WriteResult(object, true, false, warnings);
            }
            String key = key(namespace, name);
            PreparedWrite prepared = prepareWrite(key, object);
            KeyValue stored;
            try {
                stored = storage.create(key, prepared.bytes(), leaseForWrite());
            } catch (StorageException.KeyExists e) {
                prepared.forget();
                throw StatusException.alreadyExists(type.gvk().group(), type.plural(), name);
            } catch (StorageException.ValueTooLarge e) {
                prepared.forget();
                throw StatusException.requestEntityTooLarge(1_572_864);
            } catch (RuntimeException e) {
                prepared.forget();
                outcome = Outcome.UNKNOWN;
                throw e;
            }
            outcome = Outcome.STORED;
            cache.noteWrite(stored.modRevision());
            return new WriteResult(stamp(object, stored.modRevision()), true, false, warnings, prepared.served(stored.modRevision()));
        } finally {
            finish(transaction, outcome);
        }
    }

    /** How a write ended, for its {@link WriteTransaction}. */
    private enum Outcome {
        STORED,
        NOT_STORED,
        /** The storage failed in a way that does not tell whether the write landed. */
        UNKNOWN
    }

    private void finish(WriteTransaction transaction, Outcome outcome) {
        switch (outcome) {
            case STORED -> transaction.commit();
            case NOT_STORED -> transaction.revert();
            case UNKNOWN -> LOG.warn("a {} write failed with an unknown outcome; keeping what it reserved until the next start", type.plural());
        }
    }

    /** Sets the resourceVersion last in the metadata, where the served JSON of a stored object has it. */
    private static ObjectNode stamp(ObjectNode object, long revision) {
        ObjectNode metadata = ObjectMetadata.of(object);
        metadata.remove("resourceVersion");
        metadata.put("resourceVersion", Long.toString(revision));
        return object;
    }

    /**
     * A write's object encoded once: the bytes to store, and (for a resource stored in its own form) the served JSON
     * made from them and an announcement to the watch cache, which then takes the object from here instead of
     * decoding the storage event again.
     */
    private record PreparedWrite(byte[] bytes, Optional<StoredJson> json, Runnable forgetter) {
        Optional<byte[]> served(long revision) {
            return json.map(encoded -> encoded.served(revision));
        }

        void forget() {
            forgetter.run();
        }
    }

    private PreparedWrite prepareWrite(String key, ObjectNode served) {
        if (conversion.isPresent()) {
            return new PreparedWrite(encode(served), Optional.empty(), () -> {});
        }
        StoredJson json = StoredJson.encode(served);
        String name = ObjectMetadata.text(served, "name");
        String namespace = ObjectMetadata.text(served, "namespace");
        Map<String, String> labels = ObjectMetadata.stringMap(served, "labels");
        Map<String, String> fields = selectableFields(served, namespace, name);
        WatchCache.ExpectedWrite expected = cache.expectWrite(key, json.stored(),
                revision -> new CachedObject(key, namespace, name, revision, json.served(revision), labels, fields));
        return new PreparedWrite(json.stored(), Optional.of(json), () -> cache.forgetWrite(key, expected));
    }

    /**
     * Computes the new state of an object from the stored one.
     */
    @FunctionalInterface
    public interface Updater {
        /**
         * @param current a copy of the stored object (with its resourceVersion), or null when absent
         * @return the object to store; a {@code metadata.resourceVersion} in it must equal the stored one
         */
        ObjectNode apply(ObjectNode current);
    }

    @Override
    public ObjectNode guaranteedUpdate(String namespace, String name, String subresource, UnaryOperator<ObjectNode> tryUpdate) {
        return update(namespace, name, subresource, current -> {
            if (current == null) {
                throw notFound(name);
            }
            return tryUpdate.apply(current);
        }, OperationContext.IN_PROCESS).object();
    }

    /**
     * Updates (PUT, PATCH, subresource writes) an object, retrying on storage conflicts by calling
     * {@code updater} again on the fresh object, as upstream's {@code GuaranteedUpdate}.
     *
     * @param subresource empty for the main resource, else a subresource with a strategy (e.g. {@code status})
     */
    public WriteResult update(String namespace, String name, String subresource, Updater updater, OperationContext context) {
        ResourceStrategy rules = strategyFor(subresource);
        String key = key(namespace, name);
        // Objects with a time to live are rare to update and carry a lease the cache does not keep.
        boolean tryCache = strategy.timeToLive().isEmpty();
        for (int attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
            UpdateBase base = tryCache ? cachedBase(key) : null;
            tryCache = false;
            if (base == null) {
                base = storedBase(key);
            }
            try {
                WriteResult result = updateOnce(namespace, name, subresource, updater, context, rules, key, base);
                if (result != null) {
                    return result;
                }
            } catch (StatusException e) {
                // The cache may lag storage: what failed against its copy is decided again against storage.
                if (!base.cached()) {
                    throw e;
                }
            }
        }
        throw StatusException.conflict(type.gvk().group(), type.plural(), name, "too many concurrent updates, please try again");
    }

    /**
     * The state an update starts from: the watch cache's copy of the object first, as upstream's
     * {@code GuaranteedUpdate} starts from the cached object. The write is conditional on its revision, so a stale copy
     * costs a retry against storage, never a lost update.
     */
    private UpdateBase cachedBase(String key) {
        if (!cache.keepsObjects()) {
            return null;
        }
        CachedObject cached = cache.get(key);
        return cached == null ? null : new UpdateBase(cached.toObjectNode(), cached.revision(), Lease.NONE, true);
    }

    private UpdateBase storedBase(String key) {
        KeyValue stored = storage.get(key);
        return stored == null ? UpdateBase.ABSENT : new UpdateBase(toServed(stored), stored.modRevision(), stored.lease(), false);
    }

    /**
     * The stored object an update attempt applies to: {@code object} is null when absent. {@code cached} bases come
     * from the watch cache and may be stale.
     */
    private record UpdateBase(ObjectNode object, long modRevision, long lease, boolean cached) {
        static final UpdateBase ABSENT = new UpdateBase(null, 0, Lease.NONE, false);
    }

    /**
     * One attempt of {@link #update}: the result, or null to try again from storage because the stored object changed
     * under it. From a {@link UpdateBase#cached() cached} base an update that would change nothing is tried again too,
     * as upstream checks a no-op against storage before answering it.
     */
    private WriteResult updateOnce(String namespace, String name, String subresource, Updater updater, OperationContext context,
            ResourceStrategy rules, String key, UpdateBase stored) {
        ObjectNode current = stored.object();
        ObjectNode updated = updater.apply(current == null ? null : current.deepCopy());
        if (updated == null) {
            throw notFound(name);
        }
        checkKind(updated);
        ObjectNode metadata = ObjectMetadata.of(updated);
        String bodyName = ObjectMetadata.text(updated, "name");
        if (bodyName.isEmpty()) {
            metadata.put("name", name);
        } else if (!bodyName.equals(name)) {
            throw StatusException.badRequest("the name of the object (" + bodyName + ") does not match the name on the URL (" + name + ")");
        }
        checkNamespace(updated, namespace);
        strategy.applyDefaults(updated);
        if (current == null) {
            boolean applied = context.fieldOwnership() instanceof OperationContext.FieldOwnership.Applied;
            // Server-side apply creates whatever the strategy says about creating with an update, as upstream.
            if (!subresource.isEmpty() || !(rules.allowCreateOnUpdate() || applied)) {
                throw notFound(name);
            }
            metadata.remove("resourceVersion");
            try {
                WriteResult created = createOnce(namespace, updated, context);
                return new WriteResult(created.object(), true, false, created.warnings());
            } catch (StatusException e) {
                if (e.code() == 409 && e.reason() == io.k4j.api.errors.StatusReason.ALREADY_EXISTS) {
                    return null;
                }
                throw e;
            }
        }
        String resourceVersion = ObjectMetadata.text(updated, "resourceVersion");
        if (resourceVersion.isEmpty()) {
            if (!rules.allowUnconditionalUpdate()) {
                throw StatusException.invalid(type.gvk().group(), type.kind(), name,
                        new FieldErrors().add(FieldError.invalid("metadata.resourceVersion", "0x0", "must be specified for an update")));
            }
        } else if (parseResourceVersion(resourceVersion) != stored.modRevision()) {
            throw StatusException.conflict(type.gvk().group(), type.plural(), name, StatusException.OBJECT_MODIFIED);
        }
        metadata.put("resourceVersion", Long.toString(stored.modRevision()));
        keepSystemFields(updated, current);
        rules.prepareForUpdate(updated, current);
        fieldOwnership.afterPrepareForUpdate(current, updated, subresource, context);
        if (context.admit()) {
            admission.admit(attributes(Operation.UPDATE, subresource, namespace, name, updated, current, context));
            checkNamespace(updated, namespace);
        }
        FieldErrors errors = ObjectMetaValidation.validateUpdate(updated, current);
        errors.addAll(rules.validateUpdate(updated, current));
        if (!errors.isEmpty()) {
            throw StatusException.invalid(type.gvk().group(), type.kind(), name, errors);
        }
        WriteTransaction transaction = subresource.isEmpty()
                ? definition.writeHooks().beginUpdate(updated, current, context.dryRun())
                : WriteTransaction.NONE;
        Outcome outcome = Outcome.NOT_STORED;
        try {
            if (context.admit()) {
                admission.validate(attributes(Operation.UPDATE, subresource, namespace, name, updated, current, context));
            }
            List<String> warnings = rules.warningsOnUpdate(updated, current);
            if (Json.semanticEquals(updated, current)) {
                return stored.cached() ? null : new WriteResult(updated, false, false, warnings);
            }
            if (shouldDeleteDuringUpdate(updated) && !strategy.hasPendingFinalization(updated)) {
                if (context.dryRun()) {
                    return new WriteResult(updated, false, true, warnings);
                }
                try {
                    KeyValue deleted = storage.delete(key, stored.modRevision());
                    cache.noteDelete(key, deleted.modRevision());
                    ObjectNode deletedObject = toServed(deleted);
                    // The update's own reservations are reverted; what the object held goes with it.
                    definition.writeHooks().afterDelete(deletedObject);
                    return new WriteResult(deletedObject, false, true, warnings);
                } catch (StorageException.Conflict | StorageException.KeyNotFound e) {
                    return null;
                }
            }
            if (context.dryRun()) {
                return new WriteResult(updated, false, false, warnings);
            }
            PreparedWrite prepared = prepareWrite(key, updated);
            try {
                // As upstream, an update of an object with a time to live starts its time again.
                long lease = strategy.timeToLive().isPresent() ? leaseForWrite() : stored.lease();
                KeyValue written = storage.update(key, prepared.bytes(), stored.modRevision(), lease);
                outcome = Outcome.STORED;
                cache.noteWrite(written.modRevision());
                return new WriteResult(stamp(updated, written.modRevision()), false, false, warnings, prepared.served(written.modRevision()));
            } catch (StorageException.Conflict | StorageException.KeyNotFound e) {
                // Someone wrote in between: compute the update again from the new state.
                prepared.forget();
                return null;
            } catch (StorageException.ValueTooLarge e) {
                prepared.forget();
                throw StatusException.requestEntityTooLarge(1_572_864);
            } catch (RuntimeException e) {
                prepared.forget();
                outcome = Outcome.UNKNOWN;
                throw e;
            }
        } finally {
            finish(transaction, outcome);
        }
    }

    /**
     * Server-side apply of a configuration to the stored object (null to create it), for use in an {@link Updater}:
     * returns the merged object with its managed fields; write it with a context whose field ownership is
     * {@link OperationContext.FieldOwnership.Applied}.
     *
     * @throws StatusException 409 on conflicts with other managers unless forced, 400 or 500 for a configuration
     *     that is not of this kind or does not fit its schema
     */
    public ObjectNode applyConfiguration(ObjectNode current, ObjectNode configuration, String subresource, String manager, boolean force) {
        strategyFor(subresource);
        return fieldOwnership.apply(current, configuration, subresource, manager, force);
    }

    /** An update can never change uid, creationTimestamp, deletionTimestamp or the grace period, as upstream's BeforeUpdate. */
    /** The lease a create or update attaches the object to: a shared one for a time to live, else none. */
    private long leaseForWrite() {
        return strategy.timeToLive().map(leases::leaseFor).orElse(Lease.NONE);
    }

    private static void keepSystemFields(ObjectNode updated, ObjectNode current) {
        ObjectNode metadata = ObjectMetadata.of(updated);
        ObjectNode old = ObjectMetadata.of(current);
        if (ObjectMetadata.text(updated, "uid").isEmpty()) {
            copyField(old, metadata, "uid");
        }
        copyField(old, metadata, "creationTimestamp");
        copyField(old, metadata, "deletionTimestamp");
        copyField(old, metadata, "deletionGracePeriodSeconds");
        if (!metadata.has("generation") && old.has("generation")) {
            metadata.set("generation", old.get("generation"));
        }
    }

    private static void copyField(ObjectNode from, ObjectNode to, String field) {
        JsonNode value = from.get(field);
        if (value == null || value.isNull()) {
            to.remove(field);
        } else {
            to.set(field, value);
        }
    }

    /** An object marked for deletion whose finalizers are gone and whose grace period is over goes away now. */
    private static boolean shouldDeleteDuringUpdate(ObjectNode object) {
        JsonNode metadata = object.path("metadata");
        if (!metadata.hasNonNull("deletionTimestamp")) {
            return false;
        }
        JsonNode finalizers = metadata.path("finalizers");
        boolean noFinalizers = !finalizers.isArray() || finalizers.isEmpty();
        return noFinalizers && metadata.path("deletionGracePeriodSeconds").asLong(0) == 0;
    }

    @Override
    public void delete(String namespace, String name) {
        delete(namespace, name, DeleteOptions.DEFAULT, OperationContext.IN_PROCESS);
    }

    /**
     * Deletes with upstream's semantics: preconditions, graceful deletion, propagation finalizers and
     * finalizers that keep the object (with {@code deletionTimestamp}) until they are removed.
     */
    public WriteResult delete(String namespace, String name, DeleteOptions options, OperationContext context) {
        String key = key(namespace, name);
        for (int attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
            KeyValue stored = storage.get(key);
            if (stored == null) {
                throw notFound(name);
            }
            ObjectNode current = toServed(stored);
            checkPreconditions(current, stored, options, name);
            if (context.admit()) {
                AdmissionAttributes attributes = attributes(Operation.DELETE, "", namespace, name, current.deepCopy(), current, context);
                admission.admit(attributes);
                admission.validate(attributes);
            }
            ObjectNode updated = current.deepCopy();
            ObjectNode metadata = ObjectMetadata.of(updated);
            boolean finalizersChanged = applyPropagationPolicy(metadata, options.effectivePolicy());
            boolean alreadyDeleting = metadata.hasNonNull("deletionTimestamp");
            long gracePeriod = strategy.gracePeriodSeconds(updated, options.gracePeriodSeconds());
            boolean hasFinalizers = metadata.path("finalizers").isArray() && !metadata.path("finalizers").isEmpty()
                    || strategy.hasPendingFinalization(updated);
            if (alreadyDeleting) {
                long currentGrace = metadata.path("deletionGracePeriodSeconds").asLong(0);
                boolean shorten = options.gracePeriodSeconds() != null && gracePeriod < currentGrace;
                if (!shorten && !finalizersChanged) {
                    if (hasFinalizers || currentGrace > 0) {
                        return new WriteResult(current, false, false, List.of());
                    }
                } else if (shorten) {
                    metadata.put("deletionGracePeriodSeconds", gracePeriod);
                    metadata.put("deletionTimestamp", timestamp(clock.instant().plusSeconds(gracePeriod)));
                }
                if (hasFinalizers || metadata.path("deletionGracePeriodSeconds").asLong(0) > 0) {
                    Optional<WriteResult> marked = writeDeletionMark(key, stored, updated, context, name);
                    if (marked.isPresent()) {
                        return marked.get();
                    }
                    continue;
                }
            } else if (hasFinalizers || gracePeriod > 0) {
                metadata.put("deletionTimestamp", timestamp(clock.instant().plusSeconds(gracePeriod)));
                metadata.put("deletionGracePeriodSeconds", gracePeriod);
                strategy.prepareForDelete(updated);
                if (metadata.has("generation") && gracePeriod > 0) {
                    metadata.put("generation", metadata.get("generation").asLong() + 1);
                }
                Optional<WriteResult> marked = writeDeletionMark(key, stored, updated, context, name);
                if (marked.isPresent()) {
                    return marked.get();
                }
                continue;
            }
            if (context.dryRun()) {
                return new WriteResult(current, false, true, List.of());
            }
            try {
                KeyValue deleted = storage.delete(key, stored.modRevision());
                cache.noteDelete(key, deleted.modRevision());
                // The delete was conditional on the stored revision, so what it removed is what was read and parsed.
                definition.writeHooks().afterDelete(current);
                return new WriteResult(current, false, true, List.of());
            } catch (StorageException.Conflict e) {
                // Changed in between: decide again on the new state.
            } catch (StorageException.KeyNotFound e) {
                throw notFound(name);
            }
        }
        throw StatusException.conflict(type.gvk().group(), type.plural(), name, "too many concurrent updates, please try again");
    }

    private Optional<WriteResult> writeDeletionMark(String key, KeyValue stored, ObjectNode updated, OperationContext context, String name) {
        if (context.dryRun()) {
            return Optional.of(new WriteResult(updated, false, false, List.of()));
        }
        try {
            KeyValue written = storage.update(key, encode(updated), stored.modRevision(), stored.lease());
            cache.noteWrite(written.modRevision());
            ObjectMetadata.of(updated).put("resourceVersion", Long.toString(written.modRevision()));
            return Optional.of(new WriteResult(updated, false, false, List.of()));
        } catch (StorageException.Conflict e) {
            return Optional.empty();
        } catch (StorageException.KeyNotFound e) {
            throw notFound(name);
        }
    }

    /** Adds or removes the orphan and foregroundDeletion finalizers for the policy; true when they changed. */
    private static boolean applyPropagationPolicy(ObjectNode metadata, String policy) {
        if (policy == null) {
            return false;
        }
        List<String> finalizers = new ArrayList<>();
        metadata.path("finalizers").forEach(node -> finalizers.add(node.asText()));
        List<String> wanted = new ArrayList<>(finalizers);
        switch (policy) {
            case DeleteOptions.ORPHAN -> {
                wanted.remove(FOREGROUND_FINALIZER);
                if (!wanted.contains(ORPHAN_FINALIZER)) {
                    wanted.add(ORPHAN_FINALIZER);
                }
            }
            case DeleteOptions.FOREGROUND -> {
                wanted.remove(ORPHAN_FINALIZER);
                if (!wanted.contains(FOREGROUND_FINALIZER)) {
                    wanted.add(FOREGROUND_FINALIZER);
                }
            }
            default -> {
                wanted.remove(ORPHAN_FINALIZER);
                wanted.remove(FOREGROUND_FINALIZER);
            }
        }
        if (wanted.equals(finalizers)) {
            return false;
        }
        if (wanted.isEmpty()) {
            metadata.remove("finalizers");
        } else {
            ArrayNode array = metadata.putArray("finalizers");
            wanted.forEach(array::add);
        }
        return true;
    }

    private void checkPreconditions(ObjectNode current, KeyValue stored, DeleteOptions options, String name) {
        String uid = ObjectMetadata.text(current, "uid");
        if (options.preconditionUid() != null && !options.preconditionUid().equals(uid)) {
            throw StatusException.conflict(type.gvk().group(), type.plural(), name,
                    "Precondition failed: UID in precondition: " + options.preconditionUid() + ", UID in object meta: " + uid);
        }
        String resourceVersion = Long.toString(stored.modRevision());
        if (options.preconditionResourceVersion() != null && !options.preconditionResourceVersion().equals(resourceVersion)) {
            throw StatusException.conflict(type.gvk().group(), type.plural(), name,
                    "Precondition failed: ResourceVersion in precondition: " + options.preconditionResourceVersion() + ", ResourceVersion in meta: " + resourceVersion);
        }
    }

    /**
     * DELETE of a collection: deletes every matching object; returns the list that matched, as upstream does (the objects
     * as listed, before their deletion). The list holds the cache's own items, so a namespace's deletion of tens of
     * thousands of objects keeps nothing more of them until the response is written.
     * Up to {@link #DELETE_COLLECTION_WORKERS} deletes are in flight at once (upstream's
     * {@code --delete-collection-workers}): one at a time, each waits for its own commit, while concurrent ones share
     * one. The first error other than a vanished object is thrown once the workers stopped.
     */
    public ListResult deleteCollection(String namespace, ListOptions listOptions, DeleteOptions deleteOptions, OperationContext context) {
        ListResult listed = list(namespace, listOptions);
        List<CachedObject> matching = listed.items();
        int count = matching.size();
        AtomicInteger next = new AtomicInteger();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        Runnable worker = () -> {
            for (int index = next.getAndIncrement(); index < count && failure.get() == null; index = next.getAndIncrement()) {
                CachedObject object = matching.get(index);
                try {
                    delete(object.namespace(), object.name(), deleteOptions, context);
                } catch (RuntimeException e) {
                    if (!(e instanceof StatusException status && status.code() == 404)) {
                        failure.compareAndSet(null, e);
                    }
                }
            }
        };
        int workers = Math.min(DELETE_COLLECTION_WORKERS, count);
        List<Thread> started = new ArrayList<>(workers);
        for (int i = 1; i < workers; i++) {
            started.add(Thread.ofVirtual().name("delete-collection-" + type.plural()).start(worker));
        }
        worker.run();
        for (Thread thread : started) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure.compareAndSet(null, StatusException.internalError("interrupted while deleting " + type.plural()));
                break;
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return listed;
    }

    // ---- helpers ---------------------------------------------------------------------------------------

    private ResourceStrategy strategyFor(String subresource) {
        if (subresource.isEmpty()) {
            return strategy;
        }
        ResourceStrategy rules = definition.subresourceStrategies().get(subresource);
        if (rules == null) {
            throw StatusException.notFound(type.gvk().group(), type.plural() + "/" + subresource, "");
        }
        return rules;
    }

    public String key(String namespace, String name) {
        if (type.namespaced() && namespace.isEmpty()) {
            throw StatusException.badRequest("namespace is required for namespaced resource " + type.plural());
        }
        return StorageKeys.key(prefix, type.namespaced() ? namespace : "", name);
    }

    private void checkKind(ObjectNode object) {
        String kind = object.path("kind").asText("");
        String apiVersion = object.path("apiVersion").asText("");
        if (!apiVersion.isEmpty() && !apiVersion.equals(type.gvk().apiVersion())) {
            throw StatusException.badRequest("the API version in the data (" + apiVersion + ") does not match the expected API version (" + type.gvk().apiVersion() + ")");
        }
        if (!kind.isEmpty() && !kind.equals(type.kind())) {
            throw StatusException.badRequest("the object provided is unrecognized (must be of type " + type.kind() + "): kind " + kind + " does not match");
        }
        object.put("apiVersion", type.gvk().apiVersion());
        object.put("kind", type.kind());
    }

    private void checkNamespace(ObjectNode object, String namespace) {
        ObjectNode metadata = ObjectMetadata.of(object);
        if (!type.namespaced()) {
            metadata.remove("namespace");
            return;
        }
        String bodyNamespace = ObjectMetadata.text(object, "namespace");
        if (bodyNamespace.isEmpty()) {
            metadata.put("namespace", namespace);
        } else if (!bodyNamespace.equals(namespace)) {
            throw StatusException.badRequest("the namespace of the provided object does not match the namespace sent on the request");
        }
    }

    private AdmissionAttributes attributes(Operation operation, String subresource, String namespace, String name, ObjectNode object, ObjectNode oldObject, OperationContext context) {
        return new AdmissionAttributes(operation, type, subresource, namespace, name, object, oldObject, context.user(), context.dryRun());
    }

    private static String generateName(String base) {
        String trimmed = base.length() > 58 ? base.substring(0, 58) : base;
        StringBuilder name = new StringBuilder(trimmed);
        // Not a secret, as upstream's math/rand suffix is not: a SecureRandom read per character cost more than the rest of the name.
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 5; i++) {
            name.append(NAME_ALPHABET.charAt(random.nextInt(NAME_ALPHABET.length())));
        }
        return name.toString();
    }

    private String now() {
        return timestamp(clock.instant());
    }

    private static String timestamp(Instant instant) {
        return Timestamps.format(instant);
    }

    /** Stored form: without resourceVersion, converted when the resource lives in another's storage. */
    private byte[] encode(ObjectNode served) {
        if (conversion.isEmpty()) {
            // Written without the resourceVersion rather than from a copy that lacks it: a deep copy per write.
            return StoredJson.encode(served).stored();
        }
        ObjectNode stored = conversion.get().toStorage(served);
        ObjectMetadata.of(stored).remove("resourceVersion");
        return Json.write(stored);
    }

    private ObjectNode toServed(KeyValue keyValue) {
        ObjectNode object = (ObjectNode) Json.readWithoutNameTable(keyValue.value());
        if (conversion.isPresent()) {
            object = conversion.get().fromStorage(object);
        }
        ObjectMetadata.of(object).put("resourceVersion", Long.toString(keyValue.modRevision()));
        return object;
    }

    /** The cached form of a stored key: served JSON with resourceVersion, labels, and selectable fields. */
    CachedObject decode(KeyValue keyValue) {
        ObjectNode object = toServed(keyValue);
        String name = ObjectMetadata.text(object, "name");
        String namespace = ObjectMetadata.text(object, "namespace");
        return new CachedObject(keyValue.key(), namespace, name, keyValue.modRevision(), Json.write(object), ObjectMetadata.stringMap(object, "labels"),
                selectableFields(object, namespace, name));
    }

    private Map<String, String> selectableFields(ObjectNode object, String namespace, String name) {
        Map<String, String> fields = new HashMap<>(strategy.selectableFields(object));
        fields.put("metadata.name", name);
        fields.put("metadata.namespace", namespace);
        return fields;
    }

    private StatusException notFound(String name) {
        return StatusException.notFound(type.gvk().group(), type.plural(), name);
    }

    private static long parseResourceVersion(String resourceVersion) {
        try {
            long value = Long.parseLong(resourceVersion);
            if (value < 0) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw StatusException.badRequest("invalid resource version: " + resourceVersion);
        }
    }

    private void checkNotTooLarge(long wanted) {
        long current = storage.currentRevision();
        if (wanted > current) {
            throw tooLarge(wanted);
        }
    }

    private StatusException tooLarge(long wanted) {
        return new StatusException(io.k4j.api.errors.StatusReason.TIMEOUT, 504,
                "Timeout: Too large resource version: " + wanted + ", current: " + storage.currentRevision(),
                null, null, null, List.of(new io.k4j.api.errors.StatusCause("ResourceVersionTooLarge", "Too large resource version", "")), 1);
    }
}
