package io.k4j.apiserver.registry.storage.storageclass;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rules of storage.k8s.io/v1 StorageClasses, as upstream's {@code pkg/registry/storage/storageclass/strategy.go},
 * the storage/v1 defaults and {@code ValidateStorageClass}: a provisioner is required, and provisioner,
 * parameters, reclaim policy and binding mode never change. Stateless and thread-safe.
 */
public final class StorageClassStrategy implements ResourceStrategy {
    /** The annotation marking the cluster's default class. */
    public static final String DEFAULT_ANNOTATION = "storageclass.kubernetes.io/is-default-class";
    private static final String BETA_DEFAULT_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class";
    private static final int MAX_PARAMETER_COUNT = 512;
    private static final int MAX_PARAMETER_SIZE = 256 * 1024;
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Provisioner", "provisioner indicates the type of the provisioner."),
            TableColumn.string("ReclaimPolicy", "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete."),
            TableColumn.string("VolumeBindingMode", "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature."),
            TableColumn.string("AllowVolumeExpansion", "allowVolumeExpansion shows whether the storage class allow volume expand."),
            TableColumn.ageColumn());

    private final ResourceType type;
    private final Ages ages;

    public StorageClassStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public ResourceType type() {
        return type;
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        Json.putIfAbsent(object, "reclaimPolicy", "Delete");
        Json.putIfAbsent(object, "volumeBindingMode", "Immediate");
    }

    @Override
    public void prepareForCreate(ObjectNode object) {}

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {}

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = new FieldErrors();
        String provisioner = Json.string(object, "provisioner");
        if (provisioner.isEmpty()) {
            errors.add(FieldError.required("provisioner", ""));
        } else {
            for (String message : Validators.qualifiedName(provisioner.toLowerCase(Locale.ROOT))) {
                errors.add(FieldError.invalid("provisioner", provisioner.toLowerCase(Locale.ROOT), message));
            }
        }
        Map<String, String> parameters = Json.stringMap(object, "parameters");
        if (parameters.size() > MAX_PARAMETER_COUNT) {
            errors.add(new FieldError(FieldError.Type.TOO_LONG, "parameters", null, "may not be more than " + MAX_PARAMETER_COUNT + " bytes"));
        } else {
            long totalSize = 0;
            for (Map.Entry<String, String> entry : parameters.entrySet()) {
                if (entry.getKey().isEmpty()) {
                    errors.add(FieldError.invalid("parameters", entry.getKey(), "field can not be empty."));
                }
                totalSize += entry.getKey().length() + entry.getValue().length();
            }
            if (totalSize > MAX_PARAMETER_SIZE) {
                errors.add(new FieldError(FieldError.Type.TOO_LONG, "parameters", null, "may not be more than " + MAX_PARAMETER_SIZE + " bytes"));
            }
        }
        String reclaimPolicy = Json.string(object, "reclaimPolicy");
        if (!reclaimPolicy.isEmpty() && !reclaimPolicy.equals("Delete") && !reclaimPolicy.equals("Retain")) {
            errors.add(FieldError.notSupported("reclaimPolicy", reclaimPolicy, List.of("Delete", "Retain")));
        }
        String bindingMode = Json.text(object, "volumeBindingMode");
        if (bindingMode == null) {
            errors.add(FieldError.required("volumeBindingMode", ""));
        } else if (!bindingMode.equals("Immediate") && !bindingMode.equals("WaitForFirstConsumer")) {
            errors.add(FieldError.notSupported("volumeBindingMode", bindingMode, List.of("Immediate", "WaitForFirstConsumer")));
        }
        List<JsonNode> topologies = Json.elements(object, "allowedTopologies");
        for (int i = 0; i < topologies.size(); i++) {
            if (Json.size(topologies.get(i), "matchLabelExpressions") == 0) {
                errors.add(FieldError.required("allowedTopologies[" + i + "].matchLabelExpressions", "must have at least one label expression"));
            }
        }
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        FieldErrors errors = validate(newObject);
        if (!Json.stringMap(newObject, "parameters").equals(Json.stringMap(oldObject, "parameters"))) {
            errors.add(FieldError.forbidden("parameters", "updates to parameters are forbidden."));
        }
        if (!Json.string(newObject, "provisioner").equals(Json.string(oldObject, "provisioner"))) {
            errors.add(FieldError.forbidden("provisioner", "updates to provisioner are forbidden."));
        }
        if (!Json.string(newObject, "reclaimPolicy").equals(Json.string(oldObject, "reclaimPolicy"))) {
            errors.add(FieldError.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
        }
        Validators.immutable(errors, newObject.get("volumeBindingMode"), oldObject.get("volumeBindingMode"), "volumeBindingMode");
        return errors;
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        String name = Json.string(object, "metadata", "name");
        Map<String, String> annotations = Json.stringMap(object, "metadata", "annotations");
        if ("true".equals(annotations.get(DEFAULT_ANNOTATION)) || "true".equals(annotations.get(BETA_DEFAULT_ANNOTATION))) {
            name += " (default)";
        }
        String reclaimPolicy = Json.present(object, "reclaimPolicy") ? Json.string(object, "reclaimPolicy") : "Delete";
        String bindingMode = Json.present(object, "volumeBindingMode") ? Json.string(object, "volumeBindingMode") : "Immediate";
        return List.of(name, Json.string(object, "provisioner"), reclaimPolicy, bindingMode, Json.bool(object, "allowVolumeExpansion"),
                ages.since(Json.text(object, "metadata", "creationTimestamp")));
    }
}
