package io.k4j.apiserver.registry.core;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The {@code status} subresource of a resource whose status strategy only differs from the main one in what it keeps:
 * the spec and the generation come from the stored object, and a resource-specific check validates the new status.
 * Thread-safe when its parts are.
 */
public final class StatusSubresourceStrategy implements ResourceStrategy {
    private final ResourceStrategy mainStrategy;
    private final BiFunction<ObjectNode, ObjectNode, FieldErrors> statusValidation;

    /**
     * @param mainStrategy the resource's strategy, for type, printing and create
     * @param statusValidation checks a status update (new object, old object)
     */
    public StatusSubresourceStrategy(ResourceStrategy mainStrategy, BiFunction<ObjectNode, ObjectNode, FieldErrors> statusValidation) {
        this.mainStrategy = requireNonNull(mainStrategy, "mainStrategy is null");
        this.statusValidation = requireNonNull(statusValidation, "statusValidation is null");
    }

    @Override
    public ResourceType type() {
        return mainStrategy.type();
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        mainStrategy.prepareForCreate(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        Updates.copyField(oldObject, newObject, "spec");
        Updates.keepGeneration(newObject, oldObject);
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        return mainStrategy.validate(object);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return statusValidation.apply(newObject, oldObject);
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode object) {
        return mainStrategy.selectableFields(object);
    }

    @Override
    public List<TableColumn> tableColumns() {
        return mainStrategy.tableColumns();
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        return mainStrategy.tableRow(object);
    }
}
