package io.k4j.apiserver.registry.groups;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.ResourceStrategy;

/**
 * The part every strategy of a resource with a spec, a status and a generation shares (workloads, disruption
 * budgets), as upstream's strategies of those resources do: on create the status is dropped and the generation
 * starts at 1; on update the stored status is kept and the generation is bumped when the spec changed. Status is
 * written through the status subresource only. Subclasses add defaults, validation and printing, and may extend
 * the two hooks. Thread-safe when the subclass is.
 */
public abstract class SpecAndStatusStrategy implements ResourceStrategy {
    private final ResourceType type;
    /** The clock of the age cells of printed rows. */
    protected final Ages ages;

    protected SpecAndStatusStrategy(ResourceType type, Ages ages) {
        this.type = requireNonNull(type, "type is null");
        this.ages = requireNonNull(ages, "ages is null");
    }

    @Override
    public final ResourceType type() {
        return type;
    }

    @Override
    public void prepareForCreate(ObjectNode object) {
        Generations.clearStatusAndStartGeneration(object);
    }

    @Override
    public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
        Generations.keepStatusAndBumpGeneration(newObject, oldObject);
    }
}
