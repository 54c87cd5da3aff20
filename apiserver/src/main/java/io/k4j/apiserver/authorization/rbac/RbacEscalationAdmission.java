package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import java.util.List;

/**
 * Applies {@link EscalationCheck} to API creates and updates (patch and apply end as updates) of the four RBAC
 * resources. Upstream does this in its policy-based RBAC storage rather than in an admission plugin; here the
 * validating admission step is where a write carries both the requesting user and the final object, so it runs
 * as the first validating plugin (before ResourceQuota charges anything). In-process writes skip admission and so
 * this check, as upstream's loopback client is a member of {@code system:masters}. Thread-safe.
 */
public final class RbacEscalationAdmission implements ValidatingAdmissionPlugin {
    /** Not an upstream admission plugin name: upstream enforces this in its RBAC registry. */
    public static final String NAME = "RBACEscalationPrevention";

    private static final List<String> GARBAGE_COLLECTION_FIELDS = List.of("ownerReferences", "finalizers");
    /** Metadata the store maintains itself, which a write never changes on purpose. */
    private static final List<String> SYSTEM_FIELDS = List.of("resourceVersion", "managedFields", "generation");

    private final EscalationCheck check;

    public RbacEscalationAdmission(EscalationCheck check) {
        this.check = requireNonNull(check, "check is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Operation operation) {
        return operation == Operation.CREATE || operation == Operation.UPDATE;
    }

    @Override
    public void validate(AdmissionAttributes attributes) {
        if (!attributes.type().gvr().group().equals(RbacPolicySource.GROUP) || !attributes.subresource().isEmpty() || attributes.object() == null) {
            return;
        }
        String resource = attributes.type().gvr().resource();
        if (!List.of("roles", "clusterroles", "rolebindings", "clusterrolebindings").contains(resource)) {
            return;
        }
        ObjectNode object = attributes.object();
        // As upstream, letting the garbage collector finish an object never needs the rights the object grants.
        if (attributes.operation() == Operation.UPDATE && attributes.oldObject() != null && onlyGarbageCollectionFieldsChange(object, attributes.oldObject())) {
            return;
        }
        String name = object.path("metadata").path("name").asText(attributes.name());
        switch (resource) {
            case "roles", "clusterroles" -> check.checkRole(attributes.user(), resource, attributes.namespace(), name,
                    PolicyRule.listFromJson(object.path("rules")), object.path("aggregationRule").isObject());
            default -> {
                JsonNode roleRef = object.path("roleRef");
                check.checkBinding(attributes.user(), resource, attributes.namespace(), name, roleRef.path("kind").asText(), roleRef.path("name").asText());
            }
        }
    }

    static boolean onlyGarbageCollectionFieldsChange(ObjectNode newObject, ObjectNode oldObject) {
        return withoutIgnoredMetadata(newObject).equals(withoutIgnoredMetadata(oldObject));
    }

    private static ObjectNode withoutIgnoredMetadata(ObjectNode object) {
        ObjectNode copy = object.deepCopy();
        if (copy.get("metadata") instanceof ObjectNode metadata) {
            metadata.remove(GARBAGE_COLLECTION_FIELDS);
            metadata.remove(SYSTEM_FIELDS);
        }
        return copy;
    }
}
