package io.k4j.apiserver.authorization.rbac;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * RBAC's privilege-escalation prevention, as upstream's RBAC registry applies it on create and update: a user may
 * write a Role or ClusterRole only with rules they already hold (or with the {@code escalate} verb on it), and may
 * write a binding only to a role whose rules they already hold (or with the {@code bind} verb on it). Members of
 * {@code system:masters} are exempt. {@link RbacEscalationAdmission} applies these checks to API writes. Thread-safe.
 */
public final class EscalationCheck {
    private static final String GROUP = RbacPolicySource.GROUP;
    /** What setting an aggregation rule needs, as it can gather any rule: everything, as upstream's {@code fullAuthority}. */
    private static final List<PolicyRule> FULL_AUTHORITY = List.of(
            PolicyRule.resourceRule(List.of(PolicyRule.ALL), List.of(PolicyRule.ALL), List.of(PolicyRule.ALL)),
            PolicyRule.nonResourceRule(List.of(PolicyRule.ALL), List.of(PolicyRule.ALL)));

    private final RbacPolicySource policy;
    private final RbacAuthorizer rbac;
    private final Authorizer authorizer;

    /**
     * @param policy the RBAC objects
     * @param rbac resolves the rules a user holds
     * @param authorizer the server's authorizer chain, asked for {@code escalate} and {@code bind}
     */
    public EscalationCheck(RbacPolicySource policy, RbacAuthorizer rbac, Authorizer authorizer) {
        this.policy = requireNonNull(policy, "policy is null");
        this.rbac = requireNonNull(rbac, "rbac is null");
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
    }

    /**
     * @param resource {@code roles} or {@code clusterroles}
     * @param namespace the role's namespace, empty for cluster roles
     * @throws StatusException 403 when the rules grant something the user does not hold
     */
    public void checkRole(UserInfo user, String resource, String namespace, String name, List<PolicyRule> rules) {
        checkRole(user, resource, namespace, name, rules, false);
    }

    /**
     * @param resource {@code roles} or {@code clusterroles}
     * @param namespace the role's namespace, empty for cluster roles
     * @param aggregated whether the role has an {@code aggregationRule}, which only holders of every permission may set
     * @throws StatusException 403 when the rules (or the aggregation rule) grant something the user does not hold
     */
    public void checkRole(UserInfo user, String resource, String namespace, String name, List<PolicyRule> rules, boolean aggregated) {
        if (user.groups().contains(UserInfo.MASTERS_GROUP) || allowed(user, "escalate", resource, namespace, name)) {
            return;
        }
        confirmNoEscalation(user, resource, namespace, name, rules);
        if (aggregated && !missingRules(user, namespace, FULL_AUTHORITY).isEmpty()) {
            throw StatusException.forbidden(GROUP, resource, name, "must have cluster-admin privileges to use the aggregationRule");
        }
    }

    /**
     * @param resource {@code rolebindings} or {@code clusterrolebindings}
     * @param namespace the binding's namespace, empty for cluster role bindings
     * @param roleKind {@code Role} or {@code ClusterRole}
     * @throws StatusException 403 when the user may neither bind the role nor holds its rules; 404 when the role
     *     does not exist and the user may not bind it
     */
    public void checkBinding(UserInfo user, String resource, String namespace, String name, String roleKind, String roleName) {
        if (user.groups().contains(UserInfo.MASTERS_GROUP)) {
            return;
        }
        String roleResource = roleKind.equals("Role") ? "roles" : "clusterroles";
        if (allowed(user, "bind", roleResource, namespace, roleName)) {
            return;
        }
        PolicySnapshot snapshot = policy.snapshot();
        Optional<List<PolicyRule>> rules = roleKind.equals("Role") ? snapshot.role(namespace, roleName) : snapshot.clusterRole(roleName);
        if (rules.isEmpty()) {
            throw StatusException.notFound(GROUP, roleResource, roleName);
        }
        confirmNoEscalation(user, resource, namespace, name, rules.get());
    }

    private boolean allowed(UserInfo user, String verb, String resource, String namespace, String name) {
        AuthorizationAttributes attributes = new AuthorizationAttributes(user, verb, true, GROUP, "v1", resource, "", namespace, name, "");
        return authorizer.authorize(attributes).decision() == Decision.ALLOW;
    }

    private List<PolicyRule> missingRules(UserInfo user, String namespace, List<PolicyRule> rules) {
        RbacAuthorizer.RulesResult held = rbac.rulesFor(user, namespace);
        List<PolicyRule> missing = new ArrayList<>();
        for (PolicyRule rule : rules) {
            for (PolicyRule atomic : breakdown(rule)) {
                if (held.rules().stream().noneMatch(owner -> covers(owner, atomic))) {
                    missing.add(atomic);
                }
            }
        }
        return missing;
    }

    private void confirmNoEscalation(UserInfo user, String resource, String namespace, String name, List<PolicyRule> rules) {
        List<PolicyRule> missing = missingRules(user, namespace, rules);
        if (missing.isEmpty()) {
            return;
        }
        RbacAuthorizer.RulesResult held = rbac.rulesFor(user, namespace);
        StringBuilder message = new StringBuilder("user ").append(quote(user.name())).append(" (groups=").append(quoteList(user.groups()))
                .append(") is attempting to grant RBAC permissions not currently held:");
        for (PolicyRule rule : compactRules(missing)) {
            message.append('\n').append(compact(rule));
        }
        if (!held.errors().isEmpty()) {
            message.append("; resolution errors: ").append(held.errors());
        }
        throw StatusException.forbidden(GROUP, resource, name, message.toString());
    }

    /**
     * Merges the rules for one group and resource (and at most one name) that differ only in verbs, and sorts the
     * result as upstream's {@code CompactRules} and {@code SortableRuleSlice} do for the message.
     */
    static List<PolicyRule> compactRules(List<PolicyRule> rules) {
        Map<List<String>, PolicyRule> simple = new LinkedHashMap<>();
        List<PolicyRule> compacted = new ArrayList<>();
        for (PolicyRule rule : rules) {
            boolean isSimple = rule.apiGroups().size() == 1 && rule.resources().size() == 1 && rule.nonResourceUrls().isEmpty() && rule.resourceNames().size() <= 1;
            if (!isSimple) {
                compacted.add(rule);
                continue;
            }
            List<String> key = List.of(rule.apiGroups().get(0), rule.resources().get(0), rule.resourceNames().isEmpty() ? "" : "=" + rule.resourceNames().get(0));
            simple.merge(key, rule, (existing, added) -> {
                List<String> verbs = new ArrayList<>(existing.verbs());
                verbs.addAll(added.verbs());
                return new PolicyRule(verbs, existing.apiGroups(), existing.resources(), existing.resourceNames(), existing.nonResourceUrls());
            });
        }
        compacted.addAll(simple.values());
        compacted.sort(Comparator.comparing(EscalationCheck::goString));
        return compacted;
    }

    /** The text Go prints for a PolicyRule, which upstream sorts the missing rules by. */
    private static String goString(PolicyRule rule) {
        return "&PolicyRule{Verbs:[" + String.join(" ", rule.verbs()) + "],APIGroups:[" + String.join(" ", rule.apiGroups())
                + "],Resources:[" + String.join(" ", rule.resources()) + "],ResourceNames:[" + String.join(" ", rule.resourceNames())
                + "],NonResourceURLs:[" + String.join(" ", rule.nonResourceUrls()) + "],}";
    }

    /** One rule per verb, group, resource (and name), or per verb and URL, as upstream's {@code BreakdownRule}. */
    static List<PolicyRule> breakdown(PolicyRule rule) {
        List<PolicyRule> atomic = new ArrayList<>();
        for (String group : rule.apiGroups()) {
            for (String resource : rule.resources()) {
                for (String verb : rule.verbs()) {
                    if (rule.resourceNames().isEmpty()) {
                        atomic.add(new PolicyRule(List.of(verb), List.of(group), List.of(resource), List.of(), List.of()));
                    } else {
                        for (String resourceName : rule.resourceNames()) {
                            atomic.add(new PolicyRule(List.of(verb), List.of(group), List.of(resource), List.of(resourceName), List.of()));
                        }
                    }
                }
            }
        }
        for (String url : rule.nonResourceUrls()) {
            for (String verb : rule.verbs()) {
                atomic.add(PolicyRule.nonResourceRule(List.of(verb), List.of(url)));
            }
        }
        return atomic;
    }

    /** Whether {@code owner} grants at least what {@code requested} does, as upstream's {@code ruleCovers}. */
    static boolean covers(PolicyRule owner, PolicyRule requested) {
        boolean verbs = owner.verbs().contains(PolicyRule.ALL) || owner.verbs().containsAll(requested.verbs());
        boolean groups = owner.apiGroups().contains(PolicyRule.ALL) || owner.apiGroups().containsAll(requested.apiGroups());
        boolean resources = resourcesCover(owner.resources(), requested.resources());
        boolean urls = urlsCover(owner.nonResourceUrls(), requested.nonResourceUrls());
        boolean names = requested.resourceNames().isEmpty()
                ? owner.resourceNames().isEmpty()
                : owner.resourceNames().isEmpty() || owner.resourceNames().containsAll(requested.resourceNames());
        return verbs && groups && resources && urls && names;
    }

    private static boolean resourcesCover(List<String> owner, List<String> requested) {
        if (owner.contains(PolicyRule.ALL)) {
            return true;
        }
        for (String resource : requested) {
            if (owner.contains(resource)) {
                continue;
            }
            int slash = resource.indexOf('/');
            if (slash >= 0 && owner.contains("*" + resource.substring(slash))) {
                continue;
            }
            return false;
        }
        return true;
    }

    private static boolean urlsCover(List<String> owner, List<String> requested) {
        for (String url : requested) {
            boolean covered = false;
            for (String ownerUrl : owner) {
                if (ownerUrl.equals(url) || (ownerUrl.endsWith("*") && url.startsWith(ownerUrl.substring(0, ownerUrl.length() - 1)))) {
                    covered = true;
                    break;
                }
            }
            if (!covered) {
                return false;
            }
        }
        return true;
    }

    /** Upstream's compact rule form, e.g. {@code {APIGroups:[""], Resources:["pods"], Verbs:["get"]}}. */
    static String compact(PolicyRule rule) {
        List<String> parts = new ArrayList<>();
        if (!rule.apiGroups().isEmpty()) {
            parts.add("APIGroups:" + quoteList(rule.apiGroups()));
        }
        if (!rule.resources().isEmpty()) {
            parts.add("Resources:" + quoteList(rule.resources()));
        }
        if (!rule.nonResourceUrls().isEmpty()) {
            parts.add("NonResourceURLs:" + quoteList(rule.nonResourceUrls()));
        }
        if (!rule.resourceNames().isEmpty()) {
            parts.add("ResourceNames:" + quoteList(rule.resourceNames()));
        }
        parts.add("Verbs:" + quoteList(rule.verbs()));
        return "{" + String.join(", ", parts) + "}";
    }

    private static String quoteList(List<String> values) {
        List<String> quoted = values.stream().map(EscalationCheck::quote).toList();
        return "[" + String.join(" ", quoted) + "]";
    }

    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
