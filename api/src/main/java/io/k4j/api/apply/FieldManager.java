package io.k4j.api.apply;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusCause;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.api.resource.GroupVersionKind;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Server-side apply and field ownership, as upstream's field manager: {@link #update} records in
 * {@code metadata.managedFields} which fields a create, update or patch changed, and {@link #apply} merges an
 * applied configuration into the live object, fails with upstream's conflict when another manager owns a field the
 * configuration changes (unless forced), and removes the fields the applier owned before and no longer applies when
 * no one else owns them.
 *
 * <p>Thread-safe (the per-request state lives in the objects passed in).
 */
public final class FieldManager {
    /** Upstream keeps at most this many update entries; older ones merge into {@link #ANCIENT_CHANGES}. */
    public static final int MAX_UPDATE_MANAGERS = 10;
    public static final String ANCIENT_CHANGES = "ancient-changes";
    /** The manager kubectl uses for {@code apply --server-side}. */
    private static final String KUBECTL = "kubectl";
    private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
    /** Who owns the fields of an object that no manager tracked when something first applies to it. */
    public static final String BEFORE_FIRST_APPLY = "before-first-apply";

    /** The metadata fields of upstream's stripped set that identify an object or keep its books, apart from managedFields. */
    static final Set<String> STRIPPED_METADATA_FIELDS = Set.of(
            "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "resourceVersion");
    /** Paths no manager owns: identity and bookkeeping fields every object has (upstream's stripped set). */
    private static final FieldSet STRIPPED = stripped();

    private final Shapes shapes;
    private final InstantSource clock;
    private final CreatedFields createdFields = new CreatedFields(32);

    public FieldManager(Shapes shapes, InstantSource clock) {
        this.shapes = requireNonNull(shapes, "shapes is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * What a write goes to.
     *
     * @param kind the kind served (its API version is recorded)
     * @param subresource empty for the main resource, else e.g. {@code status}
     * @param resetFields fields this write cannot change (the strategy resets them, e.g. {@code status} on the main
     *     resource); no manager gains them through it
     */
    public record Target(GroupVersionKind kind, String subresource, FieldSet resetFields) {
        public Target {
            requireNonNull(kind, "kind is null");
            requireNonNull(subresource, "subresource is null");
            requireNonNull(resetFields, "resetFields is null");
        }
    }

    /** A set of top-level fields, e.g. {@code status}, for {@link Target#resetFields()}. */
    public static FieldSet topLevelFields(String... names) {
        FieldSet set = new FieldSet();
        for (String name : names) {
            set.insert(List.of(new PathElement.Field(name)));
        }
        return set;
    }

    private static FieldSet stripped() {
        List<List<PathElement>> paths = new ArrayList<>(List.of(fieldPath("apiVersion"), fieldPath("kind"), fieldPath("metadata"),
                fieldPath("metadata", "managedFields")));
        STRIPPED_METADATA_FIELDS.forEach(name -> paths.add(fieldPath("metadata", name)));
        return FieldSet.of(paths);
    }

    private static List<PathElement> fieldPath(String... names) {
        List<PathElement> path = new ArrayList<>(names.length);
        for (String name : names) {
            path.add(new PathElement.Field(name));
        }
        return path;
    }

    // ---- update ----------------------------------------------------------------------------------------

    /**
     * Records a create, update or patch by {@code manager}: the fields it added or changed become its own (taken
     * from whoever owned them) and removed fields leave every manager. Sets {@code metadata.managedFields} of
     * {@code updated}. As upstream, the managed fields a client sends are kept when valid (so clients can edit
     * them), and an existing object whose managed fields are empty stays untracked until something applies to it.
     *
     * @param live the stored object, or null when {@code updated} is being created
     */
    public void update(ObjectNode live, ObjectNode updated, Target target, String manager) {
        Optional<Shape> found = shapes.forKind(target.kind());
        ObjectNode updatedMetadata = metadata(updated);
        if (found.isEmpty()) {
            return;
        }
        Shape shape = found.get();
        ManagedFields managed = null;
        if (target.subresource().isEmpty()) {
            managed = decodeOrNull(updatedMetadata.get("managedFields"));
        }
        if (managed == null || managed.isEmpty()) {
            managed = live == null ? new ManagedFields() : Optional.ofNullable(decodeOrNull(live.path("metadata").get("managedFields"))).orElseGet(ManagedFields::new);
        }
        if (managed.isEmpty() && live != null) {
            updatedMetadata.remove("managedFields");
            return;
        }
        Manager updater = new Manager(manager, Manager.Operation.UPDATE, target.kind().apiVersion(), target.subresource());
        // A create with no managed fields of its own: the set is the object's fields, the same for the same object.
        boolean plainCreate = live == null && managed.isEmpty();
        int createdHash = plainCreate ? CreatedFields.hash(updated) : 0;
        if (plainCreate) {
            FieldSet known = createdFields.find(createdHash, updated, target, manager);
            if (known != null) {
                if (!known.isEmpty()) {
                    managed.put(updater, new ManagedFields.Entry(known, target.kind().apiVersion(), Optional.of(now())));
                }
                write(updatedMetadata, managed);
                return;
            }
        }
        Optional<Set<String>> resetTopLevelFields = target.resetFields().topLevelFieldNames();
        UpdateComparison comparison = UpdateComparison.compare(live, updated, shape, resetTopLevelFields.orElse(Set.of()));
        FieldSet changed = comparison.changed();
        FieldSet removed = comparison.removed();
        if (resetTopLevelFields.isEmpty()) {
            changed = changed.recursiveDifference(target.resetFields());
            removed = removed.recursiveDifference(target.resetFields());
        }
        // Nobody owns the stripped fields, so leaving them out of what was changed changes no entry below.
        changed.removeAll(STRIPPED);
        if (plainCreate) {
            createdFields.remember(createdHash, updated, target, manager, changed);
        }
        for (Map.Entry<Manager, ManagedFields.Entry> entry : managed.entries().entrySet()) {
            FieldSet owned = entry.getValue().fields();
            // Most writes leave most managers' fields alone, and an updater that changes only fields it owns (a
            // lease renewal) keeps them all: such sets (and their encoded forms) are kept as they are.
            boolean ownsAllChanged = entry.getKey().equals(updater) && owned.containsAll(changed);
            if (!ownsAllChanged && owned.overlaps(changed) || owned.overlaps(removed) || owned.overlaps(STRIPPED)) {
                entry.setValue(new ManagedFields.Entry(owned.difference(changed).difference(removed).difference(STRIPPED), entry.getValue().apiVersion(), entry.getValue().time()));
            }
        }
        if (!changed.isEmpty()) {
            // Both are stripped already (the previous entry in the loop above), so their union is too.
            FieldSet previous = managed.get(updater).map(ManagedFields.Entry::fields).orElse(null);
            FieldSet owned = previous == null ? changed : previous.containsAll(changed) ? previous : previous.union(changed);
            managed.put(updater, new ManagedFields.Entry(owned, target.kind().apiVersion(), Optional.of(now())));
        }
        managed.removeEmpty();
        capUpdateManagers(managed);
        write(updatedMetadata, managed);
    }

    // ---- apply -----------------------------------------------------------------------------------------

    /**
     * Applies a configuration for {@code manager}, as a PATCH of type {@code application/apply-patch+yaml}.
     *
     * @param live the stored object, or null to create it from the configuration
     * @param config the applied configuration (a fully specified intent: every field it sets, its manager owns)
     * @return the new object with its {@code metadata.managedFields}; defaults are not applied
     * @throws StatusException 400 for a configuration of another kind or with managed fields, 409 with upstream's
     *     conflict causes when other managers own fields it changes and {@code force} is false, 500 with upstream's
     *     message for a configuration that does not fit the schema
     */
    public ObjectNode apply(ObjectNode live, ObjectNode config, Target target, String manager, boolean force) {
        GroupVersionKind kind = target.kind();
        String configApiVersion = config.path("apiVersion").asText("");
        String configKind = config.path("kind").asText("");
        if (!configApiVersion.equals(kind.apiVersion()) || !configKind.equals(kind.kind())) {
            throw StatusException.badRequest("invalid object type: " + goKindString(configApiVersion, configKind));
        }
        JsonNode configManagedFields = config.path("metadata").get("managedFields");
        if (configManagedFields != null && !configManagedFields.isNull()) {
            throw StatusException.badRequest("metadata.managedFields must be nil");
        }
        Shape shape = shapes.forKind(kind).orElseThrow(() -> StatusException.badRequest("no schema for " + kind));
        List<String> problems = TypedValues.validate(config, shape);
        if (!problems.isEmpty()) {
            String detail = problems.size() == 1 ? problems.get(0) : "errors:\n  " + String.join("\n  ", problems);
            throw new StatusException(StatusReason.INTERNAL_ERROR, 500,
                    "failed to create typed patch object (" + objectName(live, config) + "; " + goKindString(kind.apiVersion(), kind.kind()) + "): " + detail,
                    null, null, null, List.of(), null);
        }
        ManagedFields managed = live == null ? new ManagedFields()
                : Optional.ofNullable(decodeOrNull(live.path("metadata").get("managedFields"))).orElseGet(ManagedFields::new);
        ObjectNode liveValue = live == null ? Json.object() : withoutManagedFields(live);
        if (live != null && managed.isEmpty()) {
            // An object nothing tracked yet: its fields become the "before-first-apply" updater's, as upstream does, so
            // that a first apply changing them conflicts instead of silently taking them over.
            managed.put(new Manager(BEFORE_FIRST_APPLY, Manager.Operation.UPDATE, kind.apiVersion(), ""),
                    new ManagedFields.Entry(TypedValues.toFieldSet(liveValue, shape), kind.apiVersion(), Optional.of(now())));
        }
        Manager applier = new Manager(manager, Manager.Operation.APPLY, "", target.subresource());
        try {
            return applyOnce(live, liveValue, config, target, shape, copy(managed), applier, force);
        } catch (ConflictsException conflicts) {
            if (!manager.equals(KUBECTL) || live == null) {
                throw conflicts.toStatus();
            }
            // kubectl's first server-side apply of an object it managed with client-side apply takes over the
            // fields whose live value is still the one it last applied, as upstream does.
            FieldSet allowed = allowedByLastApplied(live, shape);
            List<Conflict> remaining = new ArrayList<>();
            for (Conflict conflict : conflicts.conflicts) {
                if (!allowed.has(conflict.path())) {
                    remaining.add(conflict);
                }
            }
            if (!remaining.isEmpty()) {
                throw new ConflictsException(remaining).toStatus();
            }
            return applyOnce(live, liveValue, config, target, shape, copy(managed), applier, true);
        }
    }

    private ObjectNode applyOnce(ObjectNode live, ObjectNode liveValue, ObjectNode config, Target target, Shape shape,
            ManagedFields managed, Manager applier, boolean force) {
        Optional<ManagedFields.Entry> last = managed.get(applier);
        FieldSet applied = TypedValues.toFieldSet(config, shape).recursiveDifference(target.resetFields());
        JsonNode merged = TypedValues.merge(liveValue, config, shape);
        managed.put(applier, new ManagedFields.Entry(applied, target.kind().apiVersion(), last.flatMap(ManagedFields.Entry::time)));
        if (last.isPresent() && !last.get().fields().isEmpty()) {
            merged = prune(merged, managed, last.get().fields(), shape);
        }
        TypedValues.Comparison comparison = TypedValues.compare(liveValue, merged, shape);
        FieldSet changed = comparison.modified().union(comparison.added()).recursiveDifference(target.resetFields());
        FieldSet removed = comparison.removed().recursiveDifference(target.resetFields());
        List<Conflict> conflicts = new ArrayList<>();
        Map<Manager, FieldSet> taken = new LinkedHashMap<>();
        for (Map.Entry<Manager, ManagedFields.Entry> entry : new TreeMap<>(managed.entries()).entrySet()) {
            if (entry.getKey().equals(applier)) {
                continue;
            }
            FieldSet conflicting = entry.getValue().fields().intersection(changed);
            if (!conflicting.isEmpty()) {
                taken.put(entry.getKey(), conflicting);
                for (List<PathElement> path : conflicting.paths()) {
                    conflicts.add(new Conflict(entry.getKey(), path));
                }
            }
        }
        if (!force && !conflicts.isEmpty()) {
            throw new ConflictsException(conflicts);
        }
        for (Map.Entry<Manager, ManagedFields.Entry> entry : managed.entries().entrySet()) {
            if (entry.getKey().equals(applier)) {
                continue;
            }
            ManagedFields.Entry owned = entry.getValue();
            FieldSet lost = taken.getOrDefault(entry.getKey(), new FieldSet());
            entry.setValue(new ManagedFields.Entry(owned.fields().difference(lost).difference(removed), owned.apiVersion(), owned.time()));
        }
        strip(managed);
        ObjectNode result = (ObjectNode) withoutNulls(merged);
        boolean noChange = Json.semanticEquals(withoutNulls(liveValue), result) && live != null;
        if (noChange) {
            result = withoutManagedFields(live);
        } else {
            ManagedFields.Entry entry = managed.get(applier).orElse(null);
            if (entry != null) {
                managed.put(applier, new ManagedFields.Entry(entry.fields(), entry.apiVersion(), Optional.of(now())));
            }
            updateLastApplied(live, result, config, applier);
        }
        capUpdateManagers(managed);
        write(metadata(result), managed);
        return result;
    }

    /**
     * Removes what the applier owned last time and no longer applies, unless another manager (applier or updater)
     * owns it; a struct field goes with it once nothing below it is owned.
     */
    private static JsonNode prune(JsonNode merged, ManagedFields managed, FieldSet last, Shape shape) {
        FieldSet owned = new FieldSet();
        for (ManagedFields.Entry entry : managed.entries().values()) {
            owned = owned.union(entry.fields());
        }
        FieldSet mergedFields = TypedValues.ensureNamedFieldsAreMembers(TypedValues.toFieldSet(merged, shape), shape);
        FieldSet removable = mergedFields
                .difference(TypedValues.ensureNamedFieldsAreMembers(owned, shape))
                .intersection(TypedValues.ensureNamedFieldsAreMembers(last, shape));
        if (removable.isEmpty()) {
            return merged;
        }
        return TypedValues.removeItems(merged, removable, shape);
    }

    /** The paths of the last client-side applied configuration whose live value is still the applied one. */
    private FieldSet allowedByLastApplied(ObjectNode live, Shape shape) {
        String lastApplied = live.path("metadata").path("annotations").path(LAST_APPLIED).asText("");
        if (lastApplied.isEmpty()) {
            return new FieldSet();
        }
        JsonNode lastConfig;
        try {
            lastConfig = Json.mapper().readTree(lastApplied);
        } catch (java.io.IOException | RuntimeException e) {
            return new FieldSet();
        }
        if (!lastConfig.isObject()) {
            return new FieldSet();
        }
        FieldSet allowed = new FieldSet();
        FieldSet lastFields = TypedValues.toFieldSet(lastConfig, shape);
        TypedValues.Comparison comparison = TypedValues.compare(withoutManagedFields(live), lastConfig, shape);
        FieldSet differing = comparison.modified();
        for (List<PathElement> path : lastFields.paths()) {
            if (!differing.has(path)) {
                allowed.insert(path);
            }
        }
        return allowed;
    }

    /** kubectl's server-side apply keeps the client-side apply annotation, when there is one, in step with it. */
    private static void updateLastApplied(ObjectNode live, ObjectNode result, ObjectNode config, Manager applier) {
        if (live == null || !applier.name().equals(KUBECTL)) {
            return;
        }
        JsonNode annotations = live.path("metadata").path("annotations");
        if (!annotations.has(LAST_APPLIED)) {
            return;
        }
        ObjectNode lastApplied = config.deepCopy();
        if (lastApplied.get("metadata") instanceof ObjectNode metadata && metadata.get("annotations") instanceof ObjectNode configAnnotations) {
            configAnnotations.remove(LAST_APPLIED);
            if (configAnnotations.isEmpty()) {
                metadata.remove("annotations");
            }
        }
        ObjectNode resultMetadata = metadata(result);
        JsonNode resultAnnotations = resultMetadata.get("annotations");
        ObjectNode target = resultAnnotations instanceof ObjectNode object ? object : resultMetadata.putObject("annotations");
        target.put(LAST_APPLIED, Json.writeString(lastApplied) + "\n");
    }

    // ---- conflicts -------------------------------------------------------------------------------------

    private record Conflict(Manager manager, List<PathElement> path) {}

    /** Conflicts found while applying; becomes upstream's 409 unless kubectl's client-side apply takes them over. */
    private static final class ConflictsException extends RuntimeException {
        private final List<Conflict> conflicts;

        ConflictsException(List<Conflict> conflicts) {
            super("apply conflicts", null, false, false);
            this.conflicts = List.copyOf(conflicts);
        }

        StatusException toStatus() {
            List<StatusCause> causes = new ArrayList<>(conflicts.size());
            for (Conflict conflict : conflicts) {
                causes.add(new StatusCause("FieldManagerConflict", "conflict with " + conflict.manager().display(), FieldSet.display(conflict.path())));
            }
            String message;
            if (conflicts.size() == 1) {
                Conflict conflict = conflicts.get(0);
                message = "Apply failed with 1 conflict: conflict with " + conflict.manager().display() + ": " + FieldSet.display(conflict.path());
            } else {
                Map<Manager, List<String>> byManager = new TreeMap<>();
                for (Conflict conflict : conflicts) {
                    byManager.computeIfAbsent(conflict.manager(), manager -> new ArrayList<>()).add(FieldSet.display(conflict.path()));
                }
                List<String> lines = new ArrayList<>();
                for (Map.Entry<Manager, List<String>> entry : byManager.entrySet()) {
                    lines.add("conflicts with " + entry.getKey().display() + ":");
                    entry.getValue().forEach(path -> lines.add("- " + path));
                }
                message = "Apply failed with " + conflicts.size() + " conflicts: " + String.join("\n", lines);
            }
            return new StatusException(StatusReason.CONFLICT, 409, message, null, null, null, causes, null);
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS);
    }

    private static ObjectNode metadata(ObjectNode object) {
        JsonNode metadata = object.get("metadata");
        if (metadata instanceof ObjectNode node) {
            return node;
        }
        return object.putObject("metadata");
    }

    private static ManagedFields decodeOrNull(JsonNode managedFields) {
        try {
            return ManagedFields.decode(managedFields);
        } catch (IllegalArgumentException e) {
            // As upstream, managed fields that cannot be decoded are replaced rather than failing the write.
            return null;
        }
    }

    private static ManagedFields copy(ManagedFields managed) {
        ManagedFields copy = new ManagedFields();
        managed.entries().forEach(copy::put);
        return copy;
    }

    private static void strip(ManagedFields managed) {
        for (Map.Entry<Manager, ManagedFields.Entry> entry : managed.entries().entrySet()) {
            ManagedFields.Entry owned = entry.getValue();
            entry.setValue(new ManagedFields.Entry(owned.fields().difference(STRIPPED), owned.apiVersion(), owned.time()));
        }
        managed.removeEmpty();
    }

    /** Merges the oldest update entries into {@link #ANCIENT_CHANGES} while there are more than the cap. */
    private static void capUpdateManagers(ManagedFields managed) {
        List<Map.Entry<Manager, ManagedFields.Entry>> updaters = new ArrayList<>();
        for (Map.Entry<Manager, ManagedFields.Entry> entry : managed.entries().entrySet()) {
            if (entry.getKey().operation() == Manager.Operation.UPDATE) {
                updaters.add(Map.entry(entry.getKey(), entry.getValue()));
            }
        }
        if (updaters.size() <= MAX_UPDATE_MANAGERS) {
            return;
        }
        updaters.sort(Comparator
                .comparing((Map.Entry<Manager, ManagedFields.Entry> entry) -> entry.getValue().time().map(Instant::getEpochSecond).orElse(0L))
                .thenComparing(entry -> entry.getKey().identifier()));
        int count = updaters.size();
        for (Iterator<Map.Entry<Manager, ManagedFields.Entry>> it = updaters.iterator(); it.hasNext() && count > MAX_UPDATE_MANAGERS; ) {
            Map.Entry<Manager, ManagedFields.Entry> oldest = it.next();
            if (oldest.getKey().name().equals(ANCIENT_CHANGES)) {
                continue;
            }
            ManagedFields.Entry entry = oldest.getValue();
            Manager bucket = new Manager(ANCIENT_CHANGES, Manager.Operation.UPDATE, entry.apiVersion(), "");
            FieldSet fields = managed.get(bucket).map(ManagedFields.Entry::fields).orElseGet(FieldSet::new).union(entry.fields());
            boolean bucketExisted = managed.get(bucket).isPresent();
            managed.remove(oldest.getKey());
            managed.put(bucket, new ManagedFields.Entry(fields, entry.apiVersion(), entry.time()));
            if (bucketExisted) {
                count--;
            }
        }
    }

    private static void write(ObjectNode metadata, ManagedFields managed) {
        ArrayNode encoded = managed.encode();
        if (encoded.isEmpty()) {
            metadata.remove("managedFields");
        } else {
            metadata.set("managedFields", encoded);
        }
    }

    private static ObjectNode withoutManagedFields(ObjectNode object) {
        ObjectNode copy = object.deepCopy();
        if (copy.get("metadata") instanceof ObjectNode metadata) {
            metadata.remove("managedFields");
        }
        return copy;
    }

    /** A copy without null-valued fields, as Go's typed objects drop them. */
    static JsonNode withoutNulls(JsonNode value) {
        if (value.isObject()) {
            ObjectNode copy = Json.object();
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                if (!entry.getValue().isNull()) {
                    copy.set(entry.getKey(), withoutNulls(entry.getValue()));
                }
            }
            return copy;
        }
        if (value.isArray()) {
            ArrayNode copy = Json.nodeFactory().arrayNode();
            value.forEach(item -> copy.add(withoutNulls(item)));
            return copy;
        }
        return value;
    }

    private static String objectName(ObjectNode live, ObjectNode config) {
        JsonNode metadata = live != null ? live.path("metadata") : config.path("metadata");
        return metadata.path("namespace").asText("") + "/" + metadata.path("name").asText("");
    }

    /** Go's {@code GroupVersionKind.String()}: {@code apps/v1, Kind=Deployment}, {@code /v1, Kind=Pod}. */
    private static String goKindString(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
        return group + "/" + version + ", Kind=" + kind;
    }
}
