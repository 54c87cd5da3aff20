package io.k4j.apiserver.authorization.node;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import io.k4j.apiserver.authorization.rbac.BootstrapPolicy;
import io.k4j.apiserver.authorization.rbac.PolicyRule;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Authorizes kubelets (users {@code system:node:<name>} in {@code system:nodes}) as upstream's Node authorizer: a
 * node may read only the secrets, config maps, persistent volume claims and volumes of pods bound to it, request
 * tokens only for their service accounts, and touch only its own Lease in {@code kube-node-lease}; everything else is
 * judged by the {@code system:node} rules. Instead of upstream's incrementally maintained graph, relations are
 * computed on demand from the pods of the namespace in question (read from the watch cache), which keeps the class
 * stateless.
 *
 * <p>Because k4j has no NodeRestriction admission, writes that upstream leaves to it are narrowed here: a node may
 * update, patch or delete only its own Node object (and its status), and change the status of or delete only pods
 * bound to it. Requests of other users get no opinion. Thread-safe.
 */
public final class NodeAuthorizer implements Authorizer {
    public static final String NODES_GROUP = "system:nodes";
    public static final String NODE_USER_PREFIX = "system:node:";
    public static final String NODE_LEASE_NAMESPACE = "kube-node-lease";

    private static final GroupVersionResource PODS = new GroupVersionResource("", "v1", "pods");
    private static final GroupVersionResource CLAIMS = new GroupVersionResource("", "v1", "persistentvolumeclaims");

    private final Registry registry;
    private final List<PolicyRule> nodeRules;

    public NodeAuthorizer(Registry registry) {
        this.registry = requireNonNull(registry, "registry is null");
        this.nodeRules = BootstrapPolicy.nodePolicyRules();
    }

    /** The node name of a kubelet user, or empty for other users. */
    public static Optional<String> nodeName(UserInfo user) {
        if (!user.groups().contains(NODES_GROUP) || !user.name().startsWith(NODE_USER_PREFIX)) {
            return Optional.empty();
        }
        return Optional.of(user.name().substring(NODE_USER_PREFIX.length())).filter(name -> !name.isEmpty());
    }

    @Override
    public AuthorizationResult authorize(AuthorizationAttributes attributes) {
        Optional<String> node = nodeName(attributes.user());
        if (node.isEmpty()) {
            return AuthorizationResult.noOpinion();
        }
        String nodeName = node.get();
        if (nodeName.isEmpty()) {
            return noOpinion("unknown node");
        }
        if (attributes.resourceRequest()) {
            String group = attributes.apiGroup();
            String resource = attributes.resource();
            if (group.isEmpty()) {
                switch (resource) {
                    case "secrets":
                        return readNamespacedObject(nodeName, attributes, references -> references.secrets().contains(attributes.name()));
                    case "configmaps":
                        return readNamespacedObject(nodeName, attributes, references -> references.configMaps().contains(attributes.name()));
                    case "persistentvolumeclaims":
                        return claim(nodeName, attributes);
                    case "persistentvolumes":
                        return volume(nodeName, attributes);
                    case "serviceaccounts":
                        if (attributes.subresource().equals("token")) {
                            return createToken(nodeName, attributes);
                        }
                        break;
                    case "nodes":
                        if (isWrite(attributes.verb()) && !attributes.verb().equals("create") && !attributes.name().equals(nodeName)) {
                            return noOpinion("node '" + nodeName + "' can only modify its own node object");
                        }
                        break;
                    case "pods":
                        if (podRestricted(attributes)) {
                            return pod(nodeName, attributes);
                        }
                        break;
                    default:
                        break;
                }
            } else if (group.equals("coordination.k8s.io") && resource.equals("leases")) {
                return lease(nodeName, attributes);
            }
        }
        for (PolicyRule rule : nodeRules) {
            if (rule.allows(attributes)) {
                return AuthorizationResult.allow("");
            }
        }
        return AuthorizationResult.noOpinion();
    }

    private AuthorizationResult readNamespacedObject(String nodeName, AuthorizationAttributes attributes, Predicate<PodReferences> related) {
        switch (attributes.verb()) {
            case "get", "list", "watch" -> {
            }
            default -> {
                return noOpinion("can only read resources of this type");
            }
        }
        if (!attributes.subresource().isEmpty()) {
            return noOpinion("cannot read subresource");
        }
        if (attributes.namespace().isEmpty()) {
            return noOpinion("can only read namespaced object of this type");
        }
        return related(nodeName, attributes, related);
    }

    private AuthorizationResult claim(String nodeName, AuthorizationAttributes attributes) {
        if (attributes.subresource().equals("status")) {
            switch (attributes.verb()) {
                case "get", "update", "patch" -> {
                }
                default -> {
                    return noOpinion("can only get, update or patch the status of this type");
                }
            }
        } else {
            if (!attributes.verb().equals("get")) {
                return noOpinion("can only get individual resources of this type");
            }
            if (!attributes.subresource().isEmpty()) {
                return noOpinion("cannot get subresource");
            }
        }
        return related(nodeName, attributes, references -> references.claims().contains(attributes.name()));
    }

    private AuthorizationResult volume(String nodeName, AuthorizationAttributes attributes) {
        if (!attributes.verb().equals("get")) {
            return noOpinion("can only get individual resources of this type");
        }
        if (!attributes.subresource().isEmpty()) {
            return noOpinion("cannot get subresource");
        }
        if (attributes.name().isEmpty()) {
            return noOpinion("No Object name found");
        }
        for (ObjectNode pod : podsOn(nodeName, "")) {
            String namespace = pod.path("metadata").path("namespace").asText("");
            for (String claimName : PodReferences.of(pod).claims()) {
                Optional<ObjectNode> claim = find(CLAIMS, namespace, claimName);
                if (claim.isPresent() && claim.get().path("spec").path("volumeName").asText("").equals(attributes.name())) {
                    return AuthorizationResult.allow("");
                }
            }
        }
        return noRelationship(nodeName);
    }

    private AuthorizationResult createToken(String nodeName, AuthorizationAttributes attributes) {
        if (!attributes.verb().equals("create") || attributes.name().isEmpty()) {
            return noOpinion("can only create tokens for individual service accounts");
        }
        // NodeRestriction (upstream) also requires the token be bound to one of the node's pods; the request body is
        // not visible here, so the relation to the service account is what is checked.
        return related(nodeName, attributes, references -> references.serviceAccount().equals(attributes.name()));
    }

    private AuthorizationResult lease(String nodeName, AuthorizationAttributes attributes) {
        switch (attributes.verb()) {
            case "get", "create", "update", "patch", "delete" -> {
            }
            default -> {
                return noOpinion("can only get, create, update, patch, or delete a node lease");
            }
        }
        if (!attributes.namespace().equals(NODE_LEASE_NAMESPACE)) {
            return noOpinion("can only access leases in the \"" + NODE_LEASE_NAMESPACE + "\" system namespace");
        }
        // On create the name is in the body, which the authorizer does not see.
        if (!attributes.verb().equals("create") && !attributes.name().equals(nodeName)) {
            return noOpinion("can only access node lease with the same name as the requesting node");
        }
        return AuthorizationResult.allow("");
    }

    private static boolean podRestricted(AuthorizationAttributes attributes) {
        if (attributes.name().isEmpty()) {
            return false;
        }
        if (attributes.subresource().equals("status")) {
            return true;
        }
        return attributes.subresource().isEmpty() && (attributes.verb().equals("get") || attributes.verb().equals("delete"));
    }

    private AuthorizationResult pod(String nodeName, AuthorizationAttributes attributes) {
        Optional<ObjectNode> pod = find(PODS, attributes.namespace(), attributes.name());
        if (pod.isEmpty()) {
            // Let the request proceed to a 404 rather than hide that the pod is gone (the kubelet relies on it).
            return allowedByNodeRules(attributes);
        }
        if (!pod.get().path("spec").path("nodeName").asText("").equals(nodeName)) {
            return noRelationship(nodeName);
        }
        return allowedByNodeRules(attributes);
    }

    private AuthorizationResult allowedByNodeRules(AuthorizationAttributes attributes) {
        for (PolicyRule rule : nodeRules) {
            if (rule.allows(attributes)) {
                return AuthorizationResult.allow("");
            }
        }
        return AuthorizationResult.noOpinion();
    }

    private AuthorizationResult related(String nodeName, AuthorizationAttributes attributes, Predicate<PodReferences> related) {
        if (attributes.name().isEmpty()) {
            return noOpinion("No Object name found");
        }
        for (ObjectNode pod : podsOn(nodeName, attributes.namespace())) {
            if (related.test(PodReferences.of(pod))) {
                return AuthorizationResult.allow("");
            }
        }
        return noRelationship(nodeName);
    }

    private List<ObjectNode> podsOn(String nodeName, String namespace) {
        // The kept parses, not copies: the authorizer only reads them, once per request of a kubelet.
        return registry.require(PODS).listForReading(namespace).stream()
                .filter(pod -> pod.path("spec").path("nodeName").asText("").equals(nodeName))
                .toList();
    }

    private Optional<ObjectNode> find(GroupVersionResource resource, String namespace, String name) {
        try {
            return Optional.of(registry.require(resource).getForReading(namespace, name));
        } catch (StatusException e) {
            if (e.code() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static boolean isWrite(String verb) {
        return switch (verb) {
            case "create", "update", "patch", "delete", "deletecollection" -> true;
            default -> false;
        };
    }

    private static AuthorizationResult noRelationship(String nodeName) {
        return noOpinion("no relationship found between node '" + nodeName + "' and this object");
    }

    private static AuthorizationResult noOpinion(String reason) {
        return new AuthorizationResult(Decision.NO_OPINION, reason);
    }
}
