package io.k4j.apiserver.registry.core.pod;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * {@code POST pods/<name>/binding}: assigns an unscheduled pod to a node, as the scheduler does. Sets
 * {@code spec.nodeName}, copies the binding's annotations and marks the pod {@code PodScheduled=True}; a pod that is
 * already bound is a 409 Conflict. Thread-safe.
 */
public final class PodBindingHandler implements SubresourceHandler {
    private final InstantSource clock;

    public PodBindingHandler(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public String subresource() {
        return "binding";
    }

    @Override
    public String apiVersion() {
        return "v1";
    }

    @Override
    public String kind() {
        return "Binding";
    }

    @Override
    public ObjectNode create(Request request, ObjectNode binding) {
        String bindingName = Trees.text(binding, "metadata", "name");
        if (!bindingName.equals(request.name())) {
            throw StatusException.badRequest("name in URL does not match name in Binding object");
        }
        FieldErrors errors = new FieldErrors();
        String targetKind = Trees.text(binding, "target", "kind");
        if (!targetKind.isEmpty() && !targetKind.equals("Node")) {
            errors.add(FieldError.notSupported("target.kind", targetKind, List.of("Node", "<empty>")));
        }
        String nodeName = Trees.text(binding, "target", "name");
        if (nodeName.isEmpty()) {
            errors.add(FieldError.required("target.name", ""));
        }
        if (!errors.isEmpty()) {
            throw StatusException.invalid("", "Binding", bindingName, errors);
        }
        if (request.dryRun()) {
            check(request.parent().get(request.namespace(), request.name()), nodeName);
        } else {
            request.parent().guaranteedUpdate(request.namespace(), request.name(), PodBindingStrategy.SUBRESOURCE, pod -> {
                check(pod, nodeName);
                Trees.object(pod, "spec").put("nodeName", nodeName);
                for (Map.Entry<String, JsonNode> annotation : Trees.at(binding, "metadata", "annotations").properties()) {
                    Trees.object(pod, "metadata", "annotations").set(annotation.getKey(), annotation.getValue().deepCopy());
                }
                PodConditions.set(pod, "PodScheduled", "True", clock.instant());
                return pod;
            });
        }
        ObjectNode status = Trees.newObject();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.putObject("metadata");
        status.put("status", "Success");
        status.put("code", 201);
        return status;
    }

    private static void check(ObjectNode pod, String nodeName) {
        String name = Trees.text(pod, "metadata", "name");
        if (Trees.has(pod, "metadata", "deletionTimestamp")) {
            throw StatusException.internalError("pod " + name + " is being deleted, cannot be assigned to a host");
        }
        String assigned = Trees.text(pod, "spec", "nodeName");
        if (!assigned.isEmpty()) {
            throw StatusException.conflict("", "binding", name, "pod " + name + " is already assigned to node \"" + assigned + "\"");
        }
        if (Trees.size(pod, "spec", "schedulingGates") > 0) {
            throw StatusException.conflict("", "binding", name, "pod " + name + " has non-empty .spec.schedulingGates");
        }
    }
}
