package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Role-based access control as upstream's RBAC authorizer: walks the cluster role bindings and, for namespaced
 * requests, the role bindings of the namespace; the first rule of a bound role that matches allows the request with
 * the reason {@code RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"}. Nothing matching gives
 * no opinion (the reason lists roles that could not be found, as upstream). Members of {@code system:masters} are
 * always allowed, as upstream's privileged-group authorizer in front of RBAC. Thread-safe.
 */
public final class RbacAuthorizer implements Authorizer {
    private final RbacPolicySource policy;

    public RbacAuthorizer(RbacPolicySource policy) {
        this.policy = requireNonNull(policy, "policy is null");
    }

    @Override
    public AuthorizationResult authorize(AuthorizationAttributes attributes) {
        if (attributes.user().groups().contains(UserInfo.MASTERS_GROUP)) {
            return AuthorizationResult.allow("");
        }
        PolicySnapshot snapshot = policy.snapshot();
        List<String> errors = new ArrayList<>();
        for (Binding binding : snapshot.clusterRoleBindingsFor(attributes.user())) {
            Optional<String> reason = allowedBy(snapshot, binding, attributes, errors);
            if (reason.isPresent()) {
                return AuthorizationResult.allow(reason.get());
            }
        }
        if (!attributes.namespace().isEmpty()) {
            for (Binding binding : snapshot.roleBindings(attributes.namespace())) {
                Optional<String> reason = allowedBy(snapshot, binding, attributes, errors);
                if (reason.isPresent()) {
                    return AuthorizationResult.allow(reason.get());
                }
            }
        }
        return errors.isEmpty() ? AuthorizationResult.noOpinion() : new AuthorizationResult(Decision.NO_OPINION, "RBAC: " + aggregate(errors));
    }

    private static Optional<String> allowedBy(PolicySnapshot snapshot, Binding binding, AuthorizationAttributes attributes, List<String> errors) {
        Optional<Subject> subject = binding.subjects().stream().filter(candidate -> candidate.appliesTo(attributes.user(), binding.namespace())).findFirst();
        if (subject.isEmpty()) {
            return Optional.empty();
        }
        Optional<List<PolicyRule>> rules = rules(snapshot, binding, errors);
        if (rules.isPresent()) {
            for (PolicyRule rule : rules.get()) {
                if (rule.allows(attributes)) {
                    return Optional.of("RBAC: allowed by " + binding.describe(subject.get()));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * All rules that apply to {@code user} in {@code namespace} (cluster-wide ones included), as upstream's
     * {@code RulesFor}, for SelfSubjectRulesReview.
     */
    public RulesResult rulesFor(UserInfo user, String namespace) {
        if (user.groups().contains(UserInfo.MASTERS_GROUP)) {
            return new RulesResult(List.of(
                    PolicyRule.resourceRule(List.of(PolicyRule.ALL), List.of(PolicyRule.ALL), List.of(PolicyRule.ALL)),
                    PolicyRule.nonResourceRule(List.of(PolicyRule.ALL), List.of(PolicyRule.ALL))), List.of());
        }
        PolicySnapshot snapshot = policy.snapshot();
        List<PolicyRule> rules = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<Binding> bindings = new ArrayList<>(snapshot.clusterRoleBindingsFor(user));
        if (!namespace.isEmpty()) {
            bindings.addAll(snapshot.roleBindings(namespace));
        }
        for (Binding binding : bindings) {
            if (binding.subjects().stream().anyMatch(subject -> subject.appliesTo(user, binding.namespace()))) {
                rules(snapshot, binding, errors).ifPresent(rules::addAll);
            }
        }
        return new RulesResult(rules, errors);
    }

    private static Optional<List<PolicyRule>> rules(PolicySnapshot snapshot, Binding binding, List<String> errors) {
        Optional<List<PolicyRule>> rules = switch (binding.roleKind()) {
            case "ClusterRole" -> snapshot.clusterRole(binding.roleName());
            case "Role" -> binding.clusterScoped() ? Optional.empty() : snapshot.role(binding.namespace(), binding.roleName());
            default -> Optional.empty();
        };
        if (rules.isEmpty()) {
            errors.add(binding.roleKind().equals("Role")
                    ? "role.rbac.authorization.k8s.io \"" + binding.roleName() + "\" not found"
                    : "clusterrole.rbac.authorization.k8s.io \"" + binding.roleName() + "\" not found");
        }
        return rules;
    }

    private static String aggregate(List<String> errors) {
        if (errors.size() == 1) {
            return errors.get(0);
        }
        return "[" + String.join(", ", errors) + "]";
    }

    /** The rules of a user and the problems met while collecting them (missing roles). */
    public record RulesResult(List<PolicyRule> rules, List<String> errors) {
        public RulesResult {
            rules = List.copyOf(requireNonNull(rules, "rules is null"));
            errors = List.copyOf(requireNonNull(errors, "errors is null"));
        }
    }
}
