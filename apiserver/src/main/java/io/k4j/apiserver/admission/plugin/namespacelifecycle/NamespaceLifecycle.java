package io.k4j.apiserver.admission.plugin.namespacelifecycle;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusCause;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.MutatingAdmissionPlugin;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.List;
import java.util.Set;

/**
 * Keeps namespaces' life cycle consistent: nothing is created in a namespace that does not exist or is being
 * terminated, and the namespaces the system relies on cannot be deleted. Thread-safe.
 */
public final class NamespaceLifecycle implements MutatingAdmissionPlugin {
    public static final String NAME = "NamespaceLifecycle";
    /** Namespaces that may never be deleted, as upstream. */
    public static final Set<String> IMMORTAL_NAMESPACES = Set.of("default", "kube-system", "kube-public");

    private final Registry registry;

    public NamespaceLifecycle(Registry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Operation operation) {
        return operation == Operation.CREATE || operation == Operation.UPDATE || operation == Operation.DELETE;
    }

    @Override
    public void admit(AdmissionAttributes attributes) {
        boolean isNamespace = Resources.isResource(attributes, Resources.NAMESPACES) && attributes.subresource().isEmpty();
        if (isNamespace) {
            if (attributes.operation() == Operation.DELETE && IMMORTAL_NAMESPACES.contains(attributes.name())) {
                throw Resources.forbidden(attributes, "this namespace may not be deleted");
            }
            return;
        }
        if (attributes.namespace().isEmpty() || attributes.operation() == Operation.DELETE) {
            return;
        }
        // Answering "not found" would reveal which namespaces exist to anyone allowed to ask a review.
        if (attributes.type().gvr().group().equals("authorization.k8s.io") && attributes.type().plural().equals("localsubjectaccessreviews")) {
            return;
        }
        ObjectNode namespace = registry.require(Resources.NAMESPACES).getForReading("", attributes.namespace());
        if (attributes.operation() == Operation.CREATE && "Terminating".equals(namespace.path("status").path("phase").asText())) {
            StatusException forbidden = Resources.forbidden(attributes,
                    "unable to create new content in namespace " + attributes.namespace() + " because it is being terminated");
            throw new StatusException(StatusReason.FORBIDDEN, 403, forbidden.getMessage(), attributes.name(),
                    attributes.type().gvr().group(), attributes.type().plural(),
                    List.of(new StatusCause("NamespaceTerminating", "namespace " + attributes.namespace() + " is being terminated", "metadata.namespace")),
                    null);
        }
    }
}
