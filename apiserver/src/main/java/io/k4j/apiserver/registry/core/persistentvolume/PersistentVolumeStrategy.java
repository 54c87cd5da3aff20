package io.k4j.apiserver.registry.core.persistentvolume;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules of persistent volumes, as upstream's {@code persistentvolumeStrategy}: reclaim policy Retain and volume
 * mode Filesystem by default, a new volume is Pending (with its phase transition time), exactly one volume source,
 * a storage capacity and at least one access mode; the source and mode never change. Thread-safe.
 */
public final class PersistentVolumeStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("persistentvolumes");
    /** Upstream's order when printing access modes. */
    public static final Map<String, String> ACCESS_MODES = Map.of("ReadWriteOnce", "RWO", "ReadOnlyMany", "ROX", "ReadWriteMany", "RWX", "ReadWriteOncePod", "RWOP");
    private static final List<String> ACCESS_MODE_ORDER = List.of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod");
    static final List<String> SUPPORTED_ACCESS_MODES = List.of("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod");
    private static final List<String> RECLAIM_POLICIES = List.of("Delete", "Recycle", "Retain");
    private static final List<String> VOLUME_MODES = List.of("Block", "Filesystem");
    private static final Set<String> SOURCES = Set.of("gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder",
            "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
            "scaleIO", "local", "storageos", "csi");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Capacity", "capacity is the description of the persistent volume's resources and capacity."),
            TableColumn.string("Access Modes", "accessModes contains all ways the volume can be mounted."),
            TableColumn.string("Reclaim Policy", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim."),
            TableColumn.string("Status", "phase indicates if a volume is available, bound to a claim, or released by a claim."),
            TableColumn.string("Claim", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim."),
            TableColumn.string("StorageClass", "StorageClass of the pv"),
            TableColumn.string("VolumeAttributesClass", "VolumeAttributesClass of the pv"),
            TableColumn.string("Reason", "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI."),
            TableColumn.ageColumn(),
            TableColumn.wide("VolumeMode", "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state."));

    private final InstantSource clock;

    public PersistentVolumeStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The {@code persistentvolumes/status} strategy. */
    public ResourceStrategy statusStrategy() {
        return new PersistentVolumeStatusStrategy(this, clock);
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode volume) {
        ObjectNode spec = Trees.object(volume, "spec");
        Trees.defaultText(spec, "persistentVolumeReclaimPolicy", "Retain");
        Trees.defaultText(spec, "volumeMode", "Filesystem");
        if (Trees.text(volume, "status", "phase").isEmpty()) {
            Trees.object(volume, "status").put("phase", "Pending");
        }
    }

    @Override
    public void prepareForCreate(ObjectNode volume) {
        ObjectNode status = volume.putObject("status");
        status.put("phase", "Pending");
        status.put("lastPhaseTransitionTime", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    }

    @Override
    public void prepareForUpdate(ObjectNode newVolume, ObjectNode oldVolume) {
        Updates.copyField(oldVolume, newVolume, "status");
    }

    @Override
    public FieldErrors validate(ObjectNode volume) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Trees.at(volume, "spec");
        validateAccessModes(Trees.elements(spec, "accessModes"), "spec.accessModes", "must specify at least 1 access mode", errors);
        JsonNode capacity = Trees.at(spec, "capacity");
        if (Trees.size(spec, "capacity") == 0) {
            errors.add(FieldError.required("spec.capacity", ""));
        } else if (!capacity.has("storage") || capacity.size() > 1) {
            errors.add(FieldError.notSupported("spec.capacity", capacity, List.of("storage")));
        }
        String reclaimPolicy = Trees.text(spec, "persistentVolumeReclaimPolicy");
        if (!reclaimPolicy.isEmpty() && !RECLAIM_POLICIES.contains(reclaimPolicy)) {
            errors.add(FieldError.notSupported("spec.persistentVolumeReclaimPolicy", reclaimPolicy, RECLAIM_POLICIES));
        }
        String volumeMode = Trees.text(spec, "volumeMode");
        if (!volumeMode.isEmpty() && !VOLUME_MODES.contains(volumeMode)) {
            errors.add(FieldError.notSupported("spec.volumeMode", volumeMode, VOLUME_MODES));
        }
        String storageClass = Trees.text(spec, "storageClassName");
        if (!storageClass.isEmpty()) {
            NameValidation.isDns1123Subdomain(storageClass).forEach(message -> errors.add(FieldError.invalid("spec.storageClassName", storageClass, message)));
        }
        List<String> sources = sources(spec);
        if (sources.isEmpty()) {
            errors.add(FieldError.required("spec", "must specify a volume type"));
        }
        for (int index = 1; index < sources.size(); index++) {
            errors.add(FieldError.forbidden("spec." + sources.get(index), "may not specify more than 1 volume type"));
        }
        return errors;
    }

    static void validateAccessModes(List<JsonNode> modes, String path, String emptyDetail, FieldErrors errors) {
        if (modes.isEmpty()) {
            errors.add(FieldError.required(path, emptyDetail));
        }
        for (JsonNode mode : modes) {
            if (!SUPPORTED_ACCESS_MODES.contains(mode.asText())) {
                errors.add(FieldError.notSupported(path, mode.asText(), SUPPORTED_ACCESS_MODES));
            }
        }
        if (modes.size() > 1 && modes.stream().anyMatch(mode -> mode.asText().equals("ReadWriteOncePod"))) {
            errors.add(FieldError.forbidden(path, "may not use ReadWriteOncePod with other access modes"));
        }
    }

    private static List<String> sources(JsonNode spec) {
        List<String> found = new ArrayList<>();
        spec.fieldNames().forEachRemaining(name -> {
            if (SOURCES.contains(name) && !spec.get(name).isNull()) {
                found.add(name);
            }
        });
        return found;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newVolume, ObjectNode oldVolume) {
        FieldErrors errors = validate(newVolume);
        JsonNode newSpec = Trees.at(newVolume, "spec");
        JsonNode oldSpec = Trees.at(oldVolume, "spec");
        ObjectNode newSource = Trees.newObject();
        ObjectNode oldSource = Trees.newObject();
        for (String source : SOURCES) {
            if (Trees.has(newSpec, source)) {
                newSource.set(source, newSpec.get(source));
            }
            if (Trees.has(oldSpec, source)) {
                oldSource.set(source, oldSpec.get(source));
            }
        }
        if (!newSource.equals(oldSource)) {
            errors.add(FieldError.forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is forbidden.\n"
                    + io.k4j.apiserver.registry.core.pod.SpecDiff.describe("core.PersistentVolumeSource", oldSource, newSource)));
        }
        Updates.immutable(newSpec.get("volumeMode"), oldSpec.get("volumeMode"), "spec.volumeMode", errors);
        return errors;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode volume) {
        // The bare "name" field is an upstream leftover still accepted.
        return Map.of("name", Trees.text(volume, "metadata", "name"));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode volume) {
        JsonNode spec = Trees.at(volume, "spec");
        String claim = "";
        if (Trees.has(spec, "claimRef")) {
            claim = Trees.text(spec, "claimRef", "namespace") + "/" + Trees.text(spec, "claimRef", "name");
        }
        String phase = Trees.has(volume, "metadata", "deletionTimestamp") ? "Terminating" : Trees.text(volume, "status", "phase");
        String storageClass = Trees.text(volume, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class");
        if (storageClass.isEmpty()) {
            storageClass = Trees.text(spec, "storageClassName");
        }
        List<Object> cells = new ArrayList<>();
        cells.add(Trees.text(volume, "metadata", "name"));
        cells.add(quantity(Trees.at(spec, "capacity", "storage")));
        cells.add(accessModes(Trees.elements(spec, "accessModes")));
        cells.add(Trees.text(spec, "persistentVolumeReclaimPolicy"));
        cells.add(phase);
        cells.add(claim);
        cells.add(storageClass);
        cells.add(Trees.has(spec, "volumeAttributesClassName") ? Trees.text(spec, "volumeAttributesClassName") : "<unset>");
        cells.add(Trees.text(volume, "status", "reason"));
        cells.add(Printing.since(Trees.at(volume, "metadata", "creationTimestamp"), clock.instant()));
        cells.add(Trees.has(spec, "volumeMode") ? Trees.text(spec, "volumeMode") : "<unset>");
        return cells;
    }

    /** A quantity cell in canonical form ({@code 1024Mi} prints as {@code 1Gi}), {@code 0} when absent, as upstream prints a Quantity. */
    public static String quantity(JsonNode value) {
        return Trees.quantity(value).map(Quantity::toString).orElse(value.isTextual() ? value.asText() : "0");
    }

    /** Upstream's {@code GetAccessModesAsString}: short names, deduplicated, in a fixed order. */
    public static String accessModes(List<JsonNode> modes) {
        Set<String> present = new LinkedHashSet<>();
        modes.forEach(mode -> present.add(mode.asText()));
        List<String> shortNames = new ArrayList<>();
        for (String mode : ACCESS_MODE_ORDER) {
            if (present.contains(mode)) {
                shortNames.add(ACCESS_MODES.get(mode));
            }
        }
        return String.join(",", shortNames);
    }
}
