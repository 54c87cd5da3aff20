package io.k4j.apiserver.registry.groups;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;
import java.util.Map;

/**
 * The {@code status} subresource of a resource, as upstream's {@code *StatusStrategy}: writes change only the
 * status (spec, and for apps workloads the labels, come from the stored object) and are validated by the
 * resource's status rules; everything else is the main strategy's. Stateless and thread-safe.
 */
public final class StatusStrategy implements ResourceStrategy {
    /** The status rules of one resource. */
    @FunctionalInterface
    public interface StatusValidation {
        FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject);
    }

    private final ResourceStrategy main;
    private final StatusValidation validation;
    private final boolean keepLabels;

    /**
     * @param main the resource's strategy
     * @param validation the status rules
     * @param keepLabels whether labels are kept from the stored object too (upstream's apps workloads)
     */
    public StatusStrategy(ResourceStrategy main, StatusValidation validation, boolean keepLabels) {
        this.main = requireNonNull(main, "main is null");
        this.validation = requireNonNull(validation, "validation is null");
        this.keepLabels = keepLabels;
    }

    @Override
    public ResourceType type() {
        return main.type();
    }

    /** A status write decodes a whole object, so it gets the resource's defaults like any other write. */
    @Override
    public void applyDefaults(ObjectNode object) {
        main.applyDefaults(object);
    }

    @Override
    public NameValidator nameValidator() {
        return main.nameValidator();
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        main.prepareForCreate(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        Generations.copyField(newObject, oldObject, "spec");
        Generations.copyMetadataField(newObject, oldObject, "generation");
        if (keepLabels) {
            Generations.copyMetadataField(newObject, oldObject, "labels");
        }
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        return main.validate(object);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return validation.validateUpdate(newObject, oldObject);
    }

    @Override
    public boolean allowUnconditionalUpdate() {
        return main.allowUnconditionalUpdate();
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode object) {
        return main.selectableFields(object);
    }

    @Override
    public List<TableColumn> tableColumns() {
        return main.tableColumns();
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        return main.tableRow(object);
    }
}
