package io.k4j.api.schema;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Quantity;
import io.k4j.api.resource.ApiGroupVersions;
import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The schemas of every built-in kind, derived once from the fabric8 model classes by Jackson introspection
 * (field names and JSON types) and completed with what the model does not carry: upstream's definition names,
 * which strings are {@code Time}, which are base64 bytes, and the merge/list metadata of {@code types.go}.
 *
 * <p>Immutable and thread-safe; {@link #builtin()} is computed on first use and shared.
 */
public final class Schemas {
    public static final String QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
    public static final String INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
    public static final String TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
    public static final String MICRO_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
    public static final String RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension";
    public static final String FIELDS_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1";
    public static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
    public static final String LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
    public static final String STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
    public static final String DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
    public static final String WATCH_EVENT = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent";
    public static final String PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
    public static final String SCALE = "io.k8s.api.autoscaling.v1.Scale";

    private static final String FABRIC8_MODEL = "io.fabric8.kubernetes.api.model";
    private static final String META_PREFIX = "io.k8s.apimachinery.pkg.apis.meta.v1.";

    /** fabric8 keeps these apimachinery types in its core package; upstream names them under meta/v1. */
    private static final Set<String> META_TYPES = Set.of(
            "ObjectMeta", "ListMeta", "OwnerReference", "ManagedFieldsEntry", "FieldsV1", "LabelSelector",
            "LabelSelectorRequirement", "Condition", "Status", "StatusDetails", "StatusCause", "DeleteOptions",
            "Preconditions", "WatchEvent", "APIResource", "APIResourceList", "APIGroup", "APIGroupList", "APIVersions",
            "GroupVersionForDiscovery", "ServerAddressByClientCIDR", "Patch", "Duration", "TypeMeta");

    /** fabric8 models {@code metav1.Time} fields as plain strings; these JSON names are Times upstream. */
    private static final Set<String> TIME_FIELDS = Set.of(
            "creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastProbeTime", "lastHeartbeatTime",
            "startedAt", "finishedAt", "startTime", "completionTime", "lastScheduleTime", "lastSuccessfulTime",
            "firstTimestamp", "lastTimestamp", "lastUpdateTime", "time", "deprecatedFirstTimestamp",
            "deprecatedLastTimestamp", "expirationTimestamp");

    /** And these are {@code metav1.MicroTime}. */
    private static final Set<String> MICRO_TIME_FIELDS = Set.of("eventTime", "renewTime", "acquireTime", "lastObservedTime");

    /** Fields whose strings (or map values) are base64 bytes: {@code []byte} in Go. */
    private static final Set<String> BYTES_FIELDS = Set.of("io.k8s.api.core.v1.Secret#data", "io.k8s.api.core.v1.ConfigMap#binaryData");

    private static final class Holder {
        static final Schemas BUILTIN = build();
    }

    private final Map<String, Definition> definitions;
    private final Map<GroupVersionKind, String> byKind;
    private final Map<String, Class<?>> modelClasses;

    private Schemas(Map<String, Definition> definitions, Map<GroupVersionKind, String> byKind, Map<String, Class<?>> modelClasses) {
        this.definitions = Collections.unmodifiableMap(new TreeMap<>(definitions));
        this.byKind = Map.copyOf(byKind);
        this.modelClasses = Map.copyOf(modelClasses);
    }

    /** The schemas of every kind in {@link BuiltinResources}, their lists, and the meta types the API uses. */
    public static Schemas builtin() {
        return Holder.BUILTIN;
    }

    /** Every definition by name, sorted by name. */
    public Map<String, Definition> definitions() {
        return definitions;
    }

    public Definition definition(String name) {
        Definition definition = definitions.get(name);
        if (definition == null) {
            throw new IllegalArgumentException("no definition " + name);
        }
        return definition;
    }

    public Optional<Definition> find(String name) {
        return Optional.ofNullable(definitions.get(name));
    }

    /** The top-level definition of a kind (including list kinds such as {@code PodList}). */
    public Optional<Definition> forKind(GroupVersionKind kind) {
        return Optional.ofNullable(byKind.get(kind)).map(definitions::get);
    }

    /** The definition name of the top-level type of a kind; fails for a kind that is not served. */
    public String definitionName(GroupVersionKind kind) {
        String name = byKind.get(kind);
        if (name == null) {
            throw new IllegalArgumentException("no schema for " + kind);
        }
        return name;
    }

    /** The fabric8 model class a definition was derived from; empty for the ones defined by hand (Scale, Time, Patch). */
    Optional<Class<?>> modelClass(String definition) {
        return Optional.ofNullable(modelClasses.get(definition));
    }

    /** The names of the given definitions and of every definition they reach, in a stable order. */
    public Set<String> closure(Set<String> roots) {
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> pending = new ArrayDeque<>(roots);
        while (!pending.isEmpty()) {
            String name = pending.pop();
            if (!seen.add(name)) {
                continue;
            }
            for (Field field : definition(name).fields().values()) {
                collectReferences(field.schema(), pending);
            }
        }
        return seen;
    }

    private static void collectReferences(Schema schema, Deque<String> pending) {
        switch (schema) {
            case Schema.Reference reference -> pending.push(reference.definition());
            case Schema.ArrayOf array -> collectReferences(array.items(), pending);
            case Schema.MapOf map -> collectReferences(map.values(), pending);
            case Schema.Scalar scalar -> { }
            case Schema.Untyped untyped -> { }
        }
    }

    /** The upstream definition name of a fabric8 model class. */
    static String upstreamName(Class<?> modelClass) {
        String packageName = modelClass.getPackageName();
        String simpleName = modelClass.getSimpleName();
        if (!packageName.startsWith(FABRIC8_MODEL)) {
            throw new IllegalArgumentException("not a fabric8 model class: " + modelClass);
        }
        String rest = packageName.substring(FABRIC8_MODEL.length());
        if (rest.isEmpty()) {
            return META_TYPES.contains(simpleName) ? META_PREFIX + simpleName : "io.k8s.api.core.v1." + simpleName;
        }
        String group = rest.substring(1);
        // fabric8 drops the version from the package of some groups (apps, rbac, storage, authentication)
        if (!group.matches(".*\\.v\\d+((alpha|beta)\\d+)?$")) {
            group = group + ".v1";
        }
        return "io.k8s.api." + group + "." + simpleName;
    }

    private static Schemas build() {
        Builder builder = new Builder();
        Map<GroupVersionKind, String> byKind = new LinkedHashMap<>();
        for (ResourceType type : BuiltinResources.all()) {
            String name = builder.define(type.modelClass());
            byKind.put(type.gvk(), name);
            builder.addKind(name, type.gvk());
            Class<?> listClass = listClass(type.modelClass());
            if (listClass != null) {
                String listName = builder.define(listClass);
                GroupVersionKind listKind = new GroupVersionKind(type.gvk().group(), type.gvk().version(), type.listKind());
                byKind.put(listKind, listName);
                builder.addKind(listName, listKind);
            }
        }
        String status = builder.define(io.fabric8.kubernetes.api.model.Status.class);
        GroupVersionKind statusKind = new GroupVersionKind("", "v1", "Status");
        builder.addKind(status, statusKind);
        byKind.put(statusKind, status);
        builder.define(io.fabric8.kubernetes.api.model.DeleteOptions.class);
        builder.define(io.fabric8.kubernetes.api.model.WatchEvent.class);
        // the discovery documents, which the OpenAPI documents describe too
        for (Class<?> discovery : List.of(io.fabric8.kubernetes.api.model.APIVersions.class, io.fabric8.kubernetes.api.model.APIGroupList.class,
                io.fabric8.kubernetes.api.model.APIGroup.class, io.fabric8.kubernetes.api.model.APIResourceList.class)) {
            String name = builder.define(discovery);
            GroupVersionKind kind = new GroupVersionKind("", "v1", discovery.getSimpleName());
            builder.addKind(name, kind);
            byKind.put(kind, name);
        }
        builder.define(io.fabric8.kubernetes.api.model.policy.v1.Eviction.class);
        builder.define(io.fabric8.kubernetes.api.model.authentication.TokenRequest.class);
        builder.defineScale();
        builder.definitions.put(PATCH, new Definition(PATCH, DefinitionKind.OBJECT, Map.of(), List.of()));
        // Upstream lists DeleteOptions and WatchEvent under every served group version: any of them accepts them.
        for (String shared : List.of(DELETE_OPTIONS, WATCH_EVENT)) {
            String kind = shared.substring(shared.lastIndexOf('.') + 1);
            builder.addKind(shared, new GroupVersionKind("", "v1", kind));
            for (ApiGroupVersions group : BuiltinResources.groups()) {
                for (String version : group.versions()) {
                    builder.addKind(shared, new GroupVersionKind(group.group(), version, kind));
                }
            }
        }
        for (Map.Entry<String, GroupVersionKind> extra : Map.of(
                "io.k8s.api.policy.v1.Eviction", new GroupVersionKind("policy", "v1", "Eviction"),
                "io.k8s.api.authentication.v1.TokenRequest", new GroupVersionKind("authentication.k8s.io", "v1", "TokenRequest"),
                SCALE, new GroupVersionKind("autoscaling", "v1", "Scale")).entrySet()) {
            builder.addKind(extra.getKey(), extra.getValue());
            byKind.put(extra.getValue(), extra.getKey());
        }
        return new Schemas(builder.definitions, byKind, builder.modelClasses);
    }

    private static Class<?> listClass(Class<?> modelClass) {
        try {
            return Class.forName(modelClass.getName() + "List", false, modelClass.getClassLoader());
        } catch (ClassNotFoundException notFound) {
            // create-only kinds (reviews, Binding) have no list
            return null;
        }
    }

    /** Introspects model classes into definitions; used only while {@link #build()} runs. */
    private static final class Builder {
        private final ObjectMapper mapper = new ObjectMapper();
        private final Map<String, Definition> definitions = new LinkedHashMap<>();
        private final Map<String, Class<?>> modelClasses = new LinkedHashMap<>();

        void addKind(String name, GroupVersionKind kind) {
            Definition definition = definitions.get(name);
            List<GroupVersionKind> kinds = new ArrayList<>(definition.groupVersionKinds());
            if (!kinds.contains(kind)) {
                kinds.add(kind);
            }
            definitions.put(name, definition.withGroupVersionKinds(kinds));
        }

        String define(Class<?> modelClass) {
            String name = upstreamName(modelClass);
            if (definitions.containsKey(name)) {
                return name;
            }
            modelClasses.put(name, modelClass);
            if (modelClass == FieldsV1.class) {
                definitions.put(name, new Definition(name, DefinitionKind.FIELDS_V1, Map.of(), List.of()));
                return name;
            }
            // reserve the name first so that a type reaching itself terminates
            definitions.put(name, new Definition(name, DefinitionKind.OBJECT, Map.of(), List.of()));
            BeanDescription description = mapper.getSerializationConfig().introspect(mapper.constructType(modelClass));
            Map<String, Field> fields = new LinkedHashMap<>();
            for (BeanPropertyDefinition property : description.findProperties()) {
                if (!property.hasField() || property.getName().equals("additionalProperties")) {
                    continue;
                }
                String fieldName = property.getName();
                Schema schema = schemaOf(property.getPrimaryType(), name, fieldName);
                fields.put(fieldName, new Field(fieldName, schema, PatchMetadataTable.lookup(name, fieldName)));
            }
            definitions.put(name, new Definition(name, DefinitionKind.OBJECT, fields, List.of()));
            return name;
        }

        private Schema schemaOf(JavaType type, String owner, String fieldName) {
            if (type.isCollectionLikeType() || type.isArrayType()) {
                return new Schema.ArrayOf(schemaOf(type.getContentType(), owner, fieldName));
            }
            if (type.isMapLikeType()) {
                return new Schema.MapOf(schemaOf(type.getContentType(), owner, fieldName));
            }
            Class<?> raw = type.getRawClass();
            if (raw == String.class) {
                if (TIME_FIELDS.contains(fieldName)) {
                    return special(TIME, DefinitionKind.TIME);
                }
                if (MICRO_TIME_FIELDS.contains(fieldName)) {
                    return special(MICRO_TIME, DefinitionKind.MICRO_TIME);
                }
                if (BYTES_FIELDS.contains(owner + "#" + fieldName)) {
                    return new Schema.Scalar(ScalarType.BYTES);
                }
                return new Schema.Scalar(ScalarType.STRING);
            }
            if (raw == Integer.class || raw == int.class) {
                return new Schema.Scalar(ScalarType.INT32);
            }
            if (raw == Long.class || raw == long.class) {
                return new Schema.Scalar(ScalarType.INT64);
            }
            if (raw == Double.class || raw == double.class || raw == Float.class || raw == float.class) {
                return new Schema.Scalar(ScalarType.DOUBLE);
            }
            if (raw == Boolean.class || raw == boolean.class) {
                return new Schema.Scalar(ScalarType.BOOLEAN);
            }
            if (raw == Quantity.class) {
                return special(QUANTITY, DefinitionKind.QUANTITY);
            }
            if (raw == IntOrString.class) {
                return special(INT_OR_STRING, DefinitionKind.INT_OR_STRING);
            }
            if (raw.getPackageName().equals("java.time")) {
                return MICRO_TIME_FIELDS.contains(fieldName) ? special(MICRO_TIME, DefinitionKind.MICRO_TIME) : special(TIME, DefinitionKind.TIME);
            }
            if (raw == MicroTime.class) {
                return special(MICRO_TIME, DefinitionKind.MICRO_TIME);
            }
            if (raw == Object.class || raw.isInterface() || !raw.getPackageName().startsWith(FABRIC8_MODEL)) {
                // an embedded object of any kind (RawExtension upstream, KubernetesResource or Object in fabric8)
                return special(RAW_EXTENSION, DefinitionKind.RAW_EXTENSION);
            }
            return new Schema.Reference(define(raw));
        }

        private Schema special(String name, DefinitionKind kind) {
            definitions.putIfAbsent(name, new Definition(name, kind, Map.of(), List.of()));
            if (kind == DefinitionKind.MICRO_TIME) {
                modelClasses.putIfAbsent(name, MicroTime.class);
            }
            return new Schema.Reference(name);
        }

        void defineScale() {
            String meta = define(io.fabric8.kubernetes.api.model.ObjectMeta.class);
            String spec = "io.k8s.api.autoscaling.v1.ScaleSpec";
            String status = "io.k8s.api.autoscaling.v1.ScaleStatus";
            definitions.put(spec, new Definition(spec, DefinitionKind.OBJECT,
                    Map.of("replicas", new Field("replicas", new Schema.Scalar(ScalarType.INT32), FieldMetadata.NONE)), List.of()));
            definitions.put(status, new Definition(status, DefinitionKind.OBJECT, Map.of(
                    "replicas", new Field("replicas", new Schema.Scalar(ScalarType.INT32), FieldMetadata.NONE),
                    "selector", new Field("selector", new Schema.Scalar(ScalarType.STRING), FieldMetadata.NONE)), List.of()));
            definitions.put(SCALE, new Definition(SCALE, DefinitionKind.OBJECT, Map.of(
                    "apiVersion", new Field("apiVersion", new Schema.Scalar(ScalarType.STRING), FieldMetadata.NONE),
                    "kind", new Field("kind", new Schema.Scalar(ScalarType.STRING), FieldMetadata.NONE),
                    "metadata", new Field("metadata", new Schema.Reference(meta), FieldMetadata.NONE),
                    "spec", new Field("spec", new Schema.Reference(spec), FieldMetadata.NONE),
                    "status", new Field("status", new Schema.Reference(status), FieldMetadata.NONE)), List.of()));
        }
    }
}
