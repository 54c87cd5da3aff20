package io.k4j.apiserver.admission;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;

/**
 * One request as admission sees it. Mutating plugins may change {@code object} in place.
 *
 * @param operation what is being done
 * @param type the resource (of the parent, for subresources)
 * @param subresource the subresource, empty for the main resource
 * @param namespace the namespace, empty for cluster-scoped resources
 * @param name the object name (may be empty on create with generateName)
 * @param object the incoming object; for DELETE the object being deleted; for subresources the subresource
 *     body (e.g. a {@code Binding}, an {@code Eviction}, a {@code Scale})
 * @param oldObject the stored object for UPDATE and DELETE, else {@code null}
 * @param user who asks
 * @param dryRun whether nothing may be persisted (plugins with side effects must not apply them)
 */
public record AdmissionAttributes(
        Operation operation,
        ResourceType type,
        String subresource,
        String namespace,
        String name,
        ObjectNode object,
        ObjectNode oldObject,
        UserInfo user,
        boolean dryRun) {
    public AdmissionAttributes {
        requireNonNull(operation, "operation is null");
        requireNonNull(type, "type is null");
        requireNonNull(subresource, "subresource is null");
        requireNonNull(namespace, "namespace is null");
        requireNonNull(name, "name is null");
        requireNonNull(user, "user is null");
    }
}
