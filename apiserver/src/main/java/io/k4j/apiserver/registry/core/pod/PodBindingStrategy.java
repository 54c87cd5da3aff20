package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.generic.SubresourceStrategy;

/**
 * The in-process write of {@link PodBindingHandler}: a binding sets {@code spec.nodeName} and a status condition in one
 * update, which neither the pod strategy (spec.nodeName is immutable) nor the status strategy (spec is ignored) allows.
 * Upstream's binding storage writes the pod directly for the same reason. Registered under {@link #SUBRESOURCE}, a name
 * no URL can address, so only the binding handler reaches it. Thread-safe.
 */
public final class PodBindingStrategy extends SubresourceStrategy {
    /** The key of this strategy in the pods' definition; the slash keeps it out of reach of URLs. */
    public static final String SUBRESOURCE = "binding/assign";

    public PodBindingStrategy(PodStrategy podStrategy) {
        super(podStrategy);
    }

    @Override
    public void prepareForUpdate(ObjectNode newPod, ObjectNode oldPod) {
        // The handler built the new pod from the stored one; nothing else may have changed.
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newPod, ObjectNode oldPod) {
        return new FieldErrors();
    }
}
