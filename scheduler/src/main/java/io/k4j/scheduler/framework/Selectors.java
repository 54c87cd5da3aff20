package io.k4j.scheduler.framework;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Label and node selector matching as upstream's {@code metav1.LabelSelectorAsSelector} and
 * {@code nodeaffinity.NewNodeSelector}, over the API's own types. Stateless and thread-safe.
 */
public final class Selectors {
    private Selectors() {}

    /**
     * A predicate over label maps for a {@code metav1.LabelSelector}: null matches nothing, an empty selector matches
     * everything. An invalid operator matches nothing, as upstream rejects such a selector.
     */
    public static Predicate<Map<String, String>> labelSelector(LabelSelector selector) {
        if (selector == null) {
            return labels -> false;
        }
        Map<String, String> matchLabels = selector.getMatchLabels() == null ? Map.of() : Map.copyOf(selector.getMatchLabels());
        List<LabelSelectorRequirement> expressions = selector.getMatchExpressions() == null ? List.of() : List.copyOf(selector.getMatchExpressions());
        if (matchLabels.isEmpty() && expressions.isEmpty()) {
            return labels -> true;
        }
        return labels -> {
            Map<String, String> actual = labels == null ? Map.of() : labels;
            for (Map.Entry<String, String> entry : matchLabels.entrySet()) {
                if (!entry.getValue().equals(actual.get(entry.getKey()))) {
                    return false;
                }
            }
            for (LabelSelectorRequirement requirement : expressions) {
                if (!matches(requirement.getOperator(), requirement.getKey(), requirement.getValues(), actual)) {
                    return false;
                }
            }
            return true;
        };
    }

    private static boolean matches(String operator, String key, List<String> values, Map<String, String> labels) {
        String value = labels.get(key);
        List<String> allowed = values == null ? List.of() : values;
        return switch (operator == null ? "" : operator) {
            case "In" -> value != null && allowed.contains(value);
            case "NotIn" -> value == null || !allowed.contains(value);
            case "Exists" -> labels.containsKey(key);
            case "DoesNotExist" -> !labels.containsKey(key);
            case "Gt", "Lt" -> value != null && compareNumbers(operator, value, allowed);
            default -> false;
        };
    }

    private static boolean compareNumbers(String operator, String value, List<String> allowed) {
        if (allowed.size() != 1) {
            return false;
        }
        try {
            long actual = Long.parseLong(value);
            long bound = Long.parseLong(allowed.get(0));
            return operator.equals("Gt") ? actual > bound : actual < bound;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Whether a node satisfies a required node selector: any of its terms (a term with no requirements matches nothing). */
    public static boolean matchesNodeSelector(NodeSelector selector, Node node) {
        if (selector == null || selector.getNodeSelectorTerms() == null) {
            return true;
        }
        for (NodeSelectorTerm term : selector.getNodeSelectorTerms()) {
            if (matchesNodeSelectorTerm(term, node)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a node satisfies every requirement of one term; an empty term matches nothing, as upstream. */
    public static boolean matchesNodeSelectorTerm(NodeSelectorTerm term, Node node) {
        if (term == null) {
            return false;
        }
        List<NodeSelectorRequirement> expressions = term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
        List<NodeSelectorRequirement> fields = term.getMatchFields() == null ? List.of() : term.getMatchFields();
        if (expressions.isEmpty() && fields.isEmpty()) {
            return false;
        }
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        for (NodeSelectorRequirement requirement : expressions) {
            if (!matches(requirement.getOperator(), requirement.getKey(), requirement.getValues(), labels)) {
                return false;
            }
        }
        for (NodeSelectorRequirement requirement : fields) {
            if (!"metadata.name".equals(requirement.getKey())) {
                return false;
            }
            String operator = requirement.getOperator();
            if (!operator.equals("In") && !operator.equals("NotIn")) {
                return false;
            }
            if (!matches(operator, "metadata.name", requirement.getValues(), Map.of("metadata.name", node.getMetadata().getName()))) {
                return false;
            }
        }
        return true;
    }
}
