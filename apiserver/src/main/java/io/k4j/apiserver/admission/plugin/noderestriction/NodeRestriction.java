package io.k4j.apiserver.admission.plugin.noderestriction;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import io.k4j.apiserver.authorization.node.NodeAuthorizer;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Limits what a kubelet (user {@code system:node:<name>} in group {@code system:nodes}) may change to its own
 * Node, its own Lease, and the pods bound to it, so that a compromised node cannot take over others. The Node
 * authorizer decides which objects a node may touch at all; this plugin checks the content of its writes.
 * Thread-safe.
 */
public final class NodeRestriction implements ValidatingAdmissionPlugin {
    public static final String NAME = "NodeRestriction";
    static final String MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";
    /** Labels with this prefix are for administrators to isolate nodes; kubelets may not set them. */
    static final String RESTRICTED_LABEL_PREFIX = "node-restriction.kubernetes.io/";

    private final Registry registry;

    public NodeRestriction(Registry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Operation operation) {
        return operation != Operation.CONNECT;
    }

    @Override
    public void validate(AdmissionAttributes attributes) {
        Optional<String> node = NodeAuthorizer.nodeName(attributes.user());
        if (node.isEmpty()) {
            return;
        }
        if (Resources.isResource(attributes, Resources.PODS)) {
            admitPod(attributes, node.get());
        } else if (Resources.isResource(attributes, Resources.NODES)) {
            admitNode(attributes, node.get());
        } else if (Resources.isResource(attributes, Resources.LEASES)) {
            if (!attributes.namespace().equals("kube-node-lease") || !attributes.name().equals(node.get())) {
                throw Resources.forbidden(attributes, "can only access node lease with the same name as the requesting node");
            }
        } else if (Resources.isResource(attributes, Resources.SERVICE_ACCOUNTS) && attributes.subresource().equals("token")) {
            admitServiceAccountToken(attributes, node.get());
        }
    }

    private void admitPod(AdmissionAttributes attributes, String node) {
        switch (attributes.subresource()) {
            case "" -> {
                switch (attributes.operation()) {
                    case CREATE -> {
                        ObjectNode pod = attributes.object();
                        if (!pod.path("metadata").path("annotations").has(MIRROR_POD_ANNOTATION)) {
                            throw Resources.forbidden(attributes, "pod does not have \"" + MIRROR_POD_ANNOTATION + "\" annotation, node \"" + node + "\" can only create mirror pods");
                        }
                        if (!node.equals(pod.path("spec").path("nodeName").asText())) {
                            throw Resources.forbidden(attributes, "node \"" + node + "\" can only create pods with spec.nodeName set to itself");
                        }
                        requireOwnedByNode(attributes, pod, node);
                    }
                    case DELETE -> requireBoundHere(attributes, attributes.oldObject(), node, "delete");
                    case UPDATE -> throw Resources.forbidden(attributes, "node \"" + node + "\" can only update pod status");
                    case CONNECT -> {}
                }
            }
            case "status" -> requireBoundHere(attributes, attributes.oldObject(), node, "update status of");
            case "eviction" -> {
                ObjectNode pod = currentPod(attributes);
                requireBoundHere(attributes, pod, node, "evict");
            }
            default -> throw Resources.forbidden(attributes, "unexpected operation " + attributes.operation() + " on pods/" + attributes.subresource());
        }
    }

    /**
     * A mirror pod must name its node as its only, controlling owner (so that deleting the Node deletes its mirror
     * pods), without blockOwnerDeletion, and with the Node's current UID, as upstream.
     */
    private void requireOwnedByNode(AdmissionAttributes attributes, ObjectNode pod, String node) {
        JsonNode owners = pod.path("metadata").path("ownerReferences");
        if (owners.size() > 1) {
            throw Resources.forbidden(attributes, "node \"" + node + "\" can only create pods with a single owner reference set to itself");
        }
        if (owners.size() == 0) {
            throw Resources.forbidden(attributes, "node \"" + node + "\" can only create pods with an owner reference set to itself");
        }
        JsonNode owner = owners.get(0);
        if (!owner.path("apiVersion").asText().equals("v1") || !owner.path("kind").asText().equals("Node")
                || !owner.path("name").asText().equals(node)) {
            throw Resources.forbidden(attributes, "node \"" + node + "\" can only create pods with an owner reference set to itself");
        }
        if (!owner.path("controller").asBoolean(false)) {
            throw Resources.forbidden(attributes, "node \"" + node + "\" can only create pods with a controller owner reference set to itself");
        }
        if (owner.path("blockOwnerDeletion").asBoolean(false)) {
            throw Resources.forbidden(attributes, "node \"" + node + "\" must not set blockOwnerDeletion on an owner reference");
        }
        String nodeUid;
        try {
            nodeUid = registry.require(Resources.NODES).get("", node).path("metadata").path("uid").asText();
        } catch (StatusException e) {
            if (e.reason() == StatusReason.NOT_FOUND) {
                throw Resources.forbidden(attributes, "node \"" + node + "\" not found");
            }
            throw e;
        }
        if (!nodeUid.equals(owner.path("uid").asText())) {
            throw Resources.forbidden(attributes, "node " + node + " UID mismatch: expected " + nodeUid + " got " + owner.path("uid").asText());
        }
    }

    private ObjectNode currentPod(AdmissionAttributes attributes) {
        try {
            return registry.require(Resources.PODS).get(attributes.namespace(), attributes.name());
        } catch (StatusException e) {
            if (e.reason() == StatusReason.NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    private static void requireBoundHere(AdmissionAttributes attributes, ObjectNode pod, String node, String action) {
        if (pod == null) {
            return;
        }
        if (!node.equals(pod.path("spec").path("nodeName").asText())) {
            throw Resources.forbidden(attributes, "node \"" + node + "\" can only " + action + " pods with spec.nodeName set to itself");
        }
    }

    private static void admitNode(AdmissionAttributes attributes, String node) {
        String requested = attributes.name().isEmpty() && attributes.object() != null
                ? attributes.object().path("metadata").path("name").asText()
                : attributes.name();
        if (!node.equals(requested)) {
            throw Resources.forbidden(attributes, "node \"" + node + "\" is not allowed to modify node \"" + requested + "\"");
        }
        if (attributes.operation() == Operation.DELETE || attributes.object() == null) {
            return;
        }
        JsonNode newLabels = attributes.object().path("metadata").path("labels");
        JsonNode oldLabels = attributes.oldObject() == null ? null : attributes.oldObject().path("metadata").path("labels");
        for (Iterator<Map.Entry<String, JsonNode>> fields = newLabels.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> label = fields.next();
            if (isRestricted(label.getKey()) && (oldLabels == null || !Objects.equals(oldLabels.get(label.getKey()), label.getValue()))) {
                throw Resources.forbidden(attributes, "is not allowed to modify labels: " + label.getKey());
            }
        }
        if (attributes.operation() == Operation.UPDATE && attributes.oldObject() != null && attributes.subresource().isEmpty()) {
            JsonNode oldTaints = attributes.oldObject().path("spec").path("taints");
            JsonNode newTaints = attributes.object().path("spec").path("taints");
            if (!oldTaints.equals(newTaints)) {
                throw Resources.forbidden(attributes, "node \"" + node + "\" is not allowed to modify taints");
            }
        }
    }

    private static boolean isRestricted(String labelKey) {
        int slash = labelKey.indexOf('/');
        String domain = slash < 0 ? "" : labelKey.substring(0, slash);
        return labelKey.startsWith(RESTRICTED_LABEL_PREFIX)
                || domain.equals("node-restriction.kubernetes.io") || domain.endsWith(".node-restriction.kubernetes.io");
    }

    private void admitServiceAccountToken(AdmissionAttributes attributes, String node) {
        if (attributes.operation() != Operation.CREATE || attributes.object() == null) {
            return;
        }
        JsonNode boundObject = attributes.object().path("spec").path("boundObjectRef");
        if (!"Pod".equals(boundObject.path("kind").asText())) {
            throw Resources.forbidden(attributes, "node requested token not bound to a pod");
        }
        ObjectNode pod;
        try {
            pod = registry.require(Resources.PODS).get(attributes.namespace(), boundObject.path("name").asText());
        } catch (StatusException e) {
            if (e.reason() == StatusReason.NOT_FOUND) {
                throw Resources.forbidden(attributes, "node requested token bound to a pod that does not exist");
            }
            throw e;
        }
        if (!boundObject.path("uid").asText("").isEmpty() && !boundObject.path("uid").asText().equals(pod.path("metadata").path("uid").asText())) {
            throw Resources.forbidden(attributes, "the UID in the bound object reference (" + boundObject.path("uid").asText()
                    + ") does not match the UID in record. The object might have been deleted and then recreated");
        }
        if (!node.equals(pod.path("spec").path("nodeName").asText())) {
            throw Resources.forbidden(attributes, "node requested token bound to a pod scheduled on a different node");
        }
    }
}
