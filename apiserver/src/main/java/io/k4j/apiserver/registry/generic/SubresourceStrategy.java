package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidator;
import java.util.List;
import java.util.Map;

/**
 * The strategy of a subresource that writes the main object ({@code status}, {@code finalize}, a binding), as
 * upstream's {@code *StatusStrategy} types embed the main strategy: everything is the main strategy's except what
 * an update keeps from the stored object ({@link #prepareForUpdate}) and how it is validated
 * ({@link #validateUpdate}), which the subclass decides. Thread-safe when the subclass and the main strategy are.
 */
public abstract class SubresourceStrategy implements ResourceStrategy {
    /** The resource's own strategy. */
    protected final ResourceStrategy main;

    protected SubresourceStrategy(ResourceStrategy main) {
        this.main = requireNonNull(main, "main is null");
    }

    @Override
    public final ResourceType type() {
        return main.type();
    }

    @Override
    public final void applyDefaults(ObjectNode object) {
        main.applyDefaults(object);
    }

    @Override
    public final NameValidator nameValidator() {
        return main.nameValidator();
    }

    @Override
    public final void prepareForCreate(ObjectNode object) {
        main.prepareForCreate(object);
    }

    @Override
    public final FieldErrors validate(ObjectNode object) {
        return main.validate(object);
    }

    @Override
    public final boolean allowUnconditionalUpdate() {
        return main.allowUnconditionalUpdate();
    }

    @Override
    public final Map<String, String> selectableFields(ObjectNode object) {
        return main.selectableFields(object);
    }

    @Override
    public final List<TableColumn> tableColumns() {
        return main.tableColumns();
    }

    @Override
    public final List<Object> tableRow(ObjectNode object) {
        return main.tableRow(object);
    }
}
