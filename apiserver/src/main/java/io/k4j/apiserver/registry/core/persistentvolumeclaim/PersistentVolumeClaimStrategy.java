package io.k4j.apiserver.registry.core.persistentvolumeclaim;

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
import io.k4j.apiserver.registry.core.persistentvolume.PersistentVolumeStrategy;
import io.k4j.apiserver.registry.core.pod.SpecDiff;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of persistent volume claims, as upstream's {@code persistentvolumeclaimStrategy}: a new claim is Pending
 * with volume mode Filesystem, it needs access modes and a positive storage request, and its spec is immutable except
 * the storage request (which may only grow) and a first {@code volumeName}. Thread-safe.
 */
public final class PersistentVolumeClaimStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("persistentvolumeclaims");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Status", "phase represents the current phase of PersistentVolumeClaim."),
            TableColumn.string("Volume", "volumeName is the binding reference to the PersistentVolume backing this claim."),
            TableColumn.string("Capacity", "capacity represents the actual resources of the underlying volume."),
            TableColumn.string("Access Modes", "accessModes contains the actual access modes the volume backing the PVC has."),
            TableColumn.string("StorageClass", "StorageClass of the pvc"),
            TableColumn.string("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
            TableColumn.ageColumn(),
            TableColumn.wide("VolumeMode", "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec."));

    private final InstantSource clock;

    public PersistentVolumeClaimStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The {@code persistentvolumeclaims/status} strategy: the spec is kept. */
    public ResourceStrategy statusStrategy() {
        return new StatusStrategy(this, (newClaim, oldClaim) -> new FieldErrors(), false);
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode claim) {
        Trees.defaultText(Trees.object(claim, "spec"), "volumeMode", "Filesystem");
        if (Trees.text(claim, "status", "phase").isEmpty()) {
            Trees.object(claim, "status").put("phase", "Pending");
        }
    }

    @Override
    public void prepareForCreate(ObjectNode claim) {
        claim.putObject("status").put("phase", "Pending");
    }

    @Override
    public void prepareForUpdate(ObjectNode newClaim, ObjectNode oldClaim) {
        Updates.copyField(oldClaim, newClaim, "status");
    }

    @Override
    public FieldErrors validate(ObjectNode claim) {
        FieldErrors errors = new FieldErrors();
        JsonNode spec = Trees.at(claim, "spec");
        validateAccessModes(spec, errors);
        JsonNode storage = Trees.at(spec, "resources", "requests", "storage");
        if (!storage.isTextual() && !storage.isNumber()) {
            errors.add(FieldError.required("spec.resources[storage]", ""));
        } else {
            Optional<Quantity> value = Trees.quantity(storage);
            if (value.isEmpty() || value.get().signum() <= 0) {
                errors.add(FieldError.invalid("spec.resources[storage]", storage.asText(), "must be greater than zero"));
            }
        }
        String storageClass = Trees.text(spec, "storageClassName");
        if (!storageClass.isEmpty()) {
            NameValidation.isDns1123Subdomain(storageClass).forEach(message -> errors.add(FieldError.invalid("spec.storageClassName", storageClass, message)));
        }
        return errors;
    }

    private static void validateAccessModes(JsonNode spec, FieldErrors errors) {
        List<JsonNode> modes = Trees.elements(spec, "accessModes");
        if (modes.isEmpty()) {
            errors.add(FieldError.required("spec.accessModes", "at least 1 access mode is required"));
        }
        for (JsonNode mode : modes) {
            if (!List.of("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod").contains(mode.asText())) {
                errors.add(FieldError.notSupported("spec.accessModes", mode.asText(), List.of("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")));
            }
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newClaim, ObjectNode oldClaim) {
        FieldErrors errors = validate(newClaim);
        ObjectNode newSpec = ((ObjectNode) Trees.object(newClaim, "spec").deepCopy());
        ObjectNode oldSpec = Trees.at(oldClaim, "spec").isObject() ? ((ObjectNode) oldClaim.get("spec")).deepCopy() : Trees.newObject();
        // The volume binder sets volumeName once.
        if (Trees.text(oldSpec, "volumeName").isEmpty()) {
            Updates.copyField(newSpec, oldSpec, "volumeName");
        }
        // A bound claim may be resized; its size is compared below.
        if (Trees.text(newClaim, "status", "phase").equals("Bound") && Trees.has(newSpec, "resources", "requests")) {
            ObjectNode requests = Trees.object(newSpec, "resources", "requests");
            JsonNode oldStorage = Trees.at(oldSpec, "resources", "requests", "storage");
            if (oldStorage.isMissingNode()) {
                requests.remove("storage");
            } else {
                requests.set("storage", oldStorage.deepCopy());
            }
        }
        if (!Trees.sameValue(newSpec, oldSpec)) {
            errors.add(FieldError.forbidden("spec", "spec is immutable after creation except resources.requests for bound claims\n"
                    + SpecDiff.describe("core.PersistentVolumeClaimSpec", oldSpec, newSpec)));
        }
        Optional<Quantity> newSize = Trees.quantity(newClaim, "spec", "resources", "requests", "storage");
        Optional<Quantity> oldSize = Trees.quantity(oldClaim, "spec", "resources", "requests", "storage");
        if (newSize.isPresent() && oldSize.isPresent() && newSize.get().compareTo(oldSize.get()) < 0) {
            errors.add(FieldError.forbidden("spec.resources.requests.storage", "field can not be less than previous value"));
        }
        return errors;
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode claim) {
        return Map.of("name", Trees.text(claim, "metadata", "name"));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode claim) {
        JsonNode spec = Trees.at(claim, "spec");
        String phase = Trees.has(claim, "metadata", "deletionTimestamp") ? "Terminating" : Trees.text(claim, "status", "phase");
        String capacity = "";
        String accessModes = "";
        if (!Trees.text(spec, "volumeName").isEmpty()) {
            accessModes = PersistentVolumeStrategy.accessModes(Trees.elements(claim, "status", "accessModes"));
            capacity = PersistentVolumeStrategy.quantity(Trees.at(claim, "status", "capacity", "storage"));
        }
        String storageClass = Trees.text(claim, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class");
        if (storageClass.isEmpty()) {
            storageClass = Trees.text(spec, "storageClassName");
        }
        List<Object> cells = new ArrayList<>();
        cells.add(Trees.text(claim, "metadata", "name"));
        cells.add(phase);
        cells.add(Trees.text(spec, "volumeName"));
        cells.add(capacity);
        cells.add(accessModes);
        cells.add(storageClass);
        cells.add(Trees.has(spec, "volumeAttributesClassName") ? Trees.text(spec, "volumeAttributesClassName") : "<unset>");
        cells.add(Printing.since(Trees.at(claim, "metadata", "creationTimestamp"), clock.instant()));
        cells.add(Trees.has(spec, "volumeMode") ? Trees.text(spec, "volumeMode") : "<unset>");
        return cells;
    }
}
