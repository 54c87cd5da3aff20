package io.k4j.apiserver.registry.core.pod;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;

/**
 * The in-process write of {@link PodBindingHandler}: a binding sets {@code spec.nodeName} and a status condition in one
 * update, which neither the pod strategy (spec.nodeName is immutable) nor the status strategy (spec is ignored) allows.
 * Upstream's binding storage writes the pod directly for the same reason. Registered under {@link #SUBRESOURCE}, a name
 * no URL can address, so only the binding handler reaches it. Thread-safe.
 */
public final class PodBindingStrategy implements ResourceStrategy {
    /** The key of this strategy in the pods' definition; the slash keeps it out of reach of URLs. */
    public static final String SUBRESOURCE = "binding/assign";

    private final PodStrategy podStrategy;

    public PodBindingStrategy(PodStrategy podStrategy) {
        this.podStrategy = requireNonNull(podStrategy, "podStrategy is null");
    }

    @Override
    public ResourceType type() {
        return podStrategy.type();
    }

    @Override
    public void prepareForCreate(ObjectNode pod) {
        podStrategy.prepareForCreate(pod);
    }

    @Override
    public void prepareForUpdate(ObjectNode newPod, ObjectNode oldPod) {
        // The handler built the new pod from the stored one; nothing else may have changed.
    }

    @Override
    public FieldErrors validate(ObjectNode pod) {
        return podStrategy.validate(pod);
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newPod, ObjectNode oldPod) {
        return new FieldErrors();
    }

    @Override
    public List<TableColumn> tableColumns() {
        return podStrategy.tableColumns();
    }

    @Override
    public List<Object> tableRow(ObjectNode pod) {
        return podStrategy.tableRow(pod);
    }
}
