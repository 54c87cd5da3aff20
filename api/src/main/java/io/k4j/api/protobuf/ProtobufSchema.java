package io.k4j.api.protobuf;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Kubernetes protobuf messages compiled from {@code src/main/proto} into {@code kubernetes.protoset} at
 * build time, and upstream's scheme in miniature: which message an {@code apiVersion} and {@code kind} name.
 *
 * <p>Immutable and thread-safe.
 */
final class ProtobufSchema {
    static final String DESCRIPTOR_SET = "kubernetes.protoset";

    static final String META = "k8s.io.apimachinery.pkg.apis.meta.v1.";
    static final String TIME = META + "Time";
    static final String MICRO_TIME = META + "MicroTime";
    static final String DURATION = META + "Duration";
    static final String FIELDS_V1 = META + "FieldsV1";
    static final String OBJECT_META = META + "ObjectMeta";
    static final String LIST_META = META + "ListMeta";
    static final String QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity";
    static final String INT_OR_STRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";
    static final String RAW_EXTENSION = "k8s.io.apimachinery.pkg.runtime.RawExtension";
    static final String UNKNOWN = "k8s.io.apimachinery.pkg.runtime.Unknown";

    /** Go named slice types ({@code type Verbs []string}): a message with {@code repeated items} on the wire, an array in JSON. */
    static final Set<String> STRING_LISTS = Set.of(
            META + "Verbs", "k8s.io.api.authentication.v1.ExtraValue", "k8s.io.api.authorization.v1.ExtraValue");

    private static final String META_GROUP_VERSION = "meta.k8s.io/v1";

    /** Upstream's {@code metav1.AddToGroupVersion} registers these in every group version. */
    private static final Set<String> KINDS_IN_EVERY_GROUP = Set.of(
            "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions", "UpdateOptions", "PatchOptions", "WatchEvent");

    /** ... and these unversioned kinds under the legacy {@code v1}. */
    private static final Set<String> UNVERSIONED_KINDS = Set.of("Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList");

    /** The protobuf package segment of each served group, e.g. {@code rbac} for {@code rbac.authorization.k8s.io}. */
    private static final Map<String, String> GROUPS_BY_PACKAGE = Map.ofEntries(
            Map.entry("core", ""),
            Map.entry("apps", "apps"),
            Map.entry("batch", "batch"),
            Map.entry("rbac", "rbac.authorization.k8s.io"),
            Map.entry("scheduling", "scheduling.k8s.io"),
            Map.entry("authentication", "authentication.k8s.io"),
            Map.entry("authorization", "authorization.k8s.io"),
            Map.entry("policy", "policy"),
            Map.entry("coordination", "coordination.k8s.io"),
            Map.entry("discovery", "discovery.k8s.io"),
            Map.entry("events", "events.k8s.io"),
            Map.entry("storage", "storage.k8s.io"),
            Map.entry("autoscaling", "autoscaling"));

    private final Map<String, Descriptor> messages;
    private final Map<String, Map<String, Descriptor>> kindsByApiVersion;

    private ProtobufSchema(Map<String, Descriptor> messages, Map<String, Map<String, Descriptor>> kindsByApiVersion) {
        this.messages = Map.copyOf(messages);
        this.kindsByApiVersion = Map.copyOf(kindsByApiVersion);
    }

    static ProtobufSchema load() {
        try (InputStream input = ProtobufSchema.class.getResourceAsStream(DESCRIPTOR_SET)) {
            if (input == null) {
                throw new IllegalStateException("missing resource " + DESCRIPTOR_SET + ": the build compiles it from src/main/proto");
            }
            return of(FileDescriptorSet.parseFrom(input));
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    static ProtobufSchema of(FileDescriptorSet set) {
        Map<String, FileDescriptorProto> protos = new LinkedHashMap<>();
        for (FileDescriptorProto file : set.getFileList()) {
            protos.put(file.getName(), file);
        }
        Map<String, FileDescriptor> built = new HashMap<>();
        for (String name : protos.keySet()) {
            build(name, protos, built);
        }
        Map<String, Descriptor> messages = new HashMap<>();
        Map<String, Map<String, Descriptor>> kinds = new HashMap<>();
        for (FileDescriptor file : built.values()) {
            for (Descriptor message : file.getMessageTypes()) {
                messages.put(message.getFullName(), message);
            }
            apiVersion(file.getPackage()).ifPresent(apiVersion -> {
                Map<String, Descriptor> byKind = kinds.computeIfAbsent(apiVersion, ignored -> new HashMap<>());
                for (Descriptor message : file.getMessageTypes()) {
                    if (isKind(message)) {
                        byKind.put(message.getName(), message);
                    }
                }
            });
        }
        return new ProtobufSchema(messages, kinds);
    }

    private static FileDescriptor build(String name, Map<String, FileDescriptorProto> protos, Map<String, FileDescriptor> built) {
        FileDescriptor done = built.get(name);
        if (done != null) {
            return done;
        }
        FileDescriptorProto proto = protos.get(name);
        if (proto == null) {
            throw new IllegalStateException(DESCRIPTOR_SET + " lacks " + name);
        }
        FileDescriptor[] dependencies = proto.getDependencyList().stream()
                .map(dependency -> build(dependency, protos, built))
                .toArray(FileDescriptor[]::new);
        try {
            FileDescriptor file = FileDescriptor.buildFrom(proto, dependencies);
            built.put(name, file);
            return file;
        } catch (DescriptorValidationException exception) {
            throw new IllegalStateException("invalid descriptor " + name, exception);
        }
    }

    /** {@code k8s.io.api.apps.v1} is {@code apps/v1}, {@code k8s.io.api.core.v1} is {@code v1}, meta is {@code meta.k8s.io/v1}. */
    private static Optional<String> apiVersion(String protobufPackage) {
        if ((META.substring(0, META.length() - 1)).equals(protobufPackage)) {
            return Optional.of(META_GROUP_VERSION);
        }
        String[] parts = protobufPackage.split("\\.");
        if (parts.length != 5 || !protobufPackage.startsWith("k8s.io.api.")) {
            return Optional.empty();
        }
        String group = GROUPS_BY_PACKAGE.get(parts[3]);
        if (group == null) {
            return Optional.empty();
        }
        return Optional.of(group.isEmpty() ? parts[4] : group + "/" + parts[4]);
    }

    /** A top-level type: it has object or list metadata, or it is a set of request options. */
    private static boolean isKind(Descriptor message) {
        FieldDescriptor metadata = message.findFieldByName("metadata");
        if (metadata != null && metadata.getType() == FieldDescriptor.Type.MESSAGE) {
            String type = metadata.getMessageType().getFullName();
            if (type.equals(OBJECT_META) || type.equals(LIST_META)) {
                return true;
            }
        }
        return message.getName().endsWith("Options") || KINDS_IN_EVERY_GROUP.contains(message.getName())
                || UNVERSIONED_KINDS.contains(message.getName());
    }

    /** The message of a kind, the way upstream's scheme resolves it; empty when the kind is not registered there. */
    Optional<Descriptor> kind(String apiVersion, String kind) {
        requireNonNull(apiVersion, "apiVersion is null");
        requireNonNull(kind, "kind is null");
        Map<String, Descriptor> byKind = kindsByApiVersion.get(apiVersion);
        if (byKind == null) {
            return Optional.empty();
        }
        Descriptor own = byKind.get(kind);
        if (own != null) {
            return Optional.of(own);
        }
        if (KINDS_IN_EVERY_GROUP.contains(kind) || (apiVersion.equals("v1") && UNVERSIONED_KINDS.contains(kind))) {
            return Optional.ofNullable(messages.get(META + kind));
        }
        return Optional.empty();
    }

    /** A message by its full protobuf name, e.g. {@code k8s.io.api.core.v1.PodSpec}. */
    Optional<Descriptor> message(String fullName) {
        return Optional.ofNullable(messages.get(requireNonNull(fullName, "fullName is null")));
    }

    Descriptor unknown() {
        return message(UNKNOWN).orElseThrow(() -> new IllegalStateException(DESCRIPTOR_SET + " lacks " + UNKNOWN));
    }

    /** Every message, for tests that check the schema against other sources. */
    List<Descriptor> messages() {
        return List.copyOf(messages.values());
    }

    /** The group versions whose kinds this schema can decode. */
    Set<String> apiVersions() {
        return kindsByApiVersion.keySet();
    }
}
