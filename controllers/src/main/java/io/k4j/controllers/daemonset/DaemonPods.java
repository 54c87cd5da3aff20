package io.k4j.controllers.daemonset;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which nodes a DaemonSet's pods belong on and how they are pinned there, as upstream's
 * {@code NodeShouldRunDaemonPod}, {@code AddOrUpdateDaemonPodTolerations} and
 * {@code ReplaceDaemonSetPodNodeNameNodeAffinity}. Stateless.
 */
final class DaemonPods {
    static final String NODE_NAME_FIELD = "metadata.name";

    /**
     * @param shouldRun a daemon pod should be created on the node
     * @param shouldContinueRunning an existing daemon pod may stay (only NoExecute taints evict it)
     */
    record Eligibility(boolean shouldRun, boolean shouldContinueRunning) {}

    private DaemonPods() {}

    /** The tolerations every daemon pod gets so that node conditions do not evict or block it. */
    static List<Toleration> addDaemonTolerations(List<Toleration> existing, boolean hostNetwork) {
        List<Toleration> tolerations = existing == null ? new ArrayList<>() : new ArrayList<>(existing);
        addIfMissing(tolerations, "node.kubernetes.io/not-ready", "NoExecute");
        addIfMissing(tolerations, "node.kubernetes.io/unreachable", "NoExecute");
        addIfMissing(tolerations, "node.kubernetes.io/disk-pressure", "NoSchedule");
        addIfMissing(tolerations, "node.kubernetes.io/memory-pressure", "NoSchedule");
        addIfMissing(tolerations, "node.kubernetes.io/pid-pressure", "NoSchedule");
        addIfMissing(tolerations, "node.kubernetes.io/unschedulable", "NoSchedule");
        if (hostNetwork) {
            addIfMissing(tolerations, "node.kubernetes.io/network-unavailable", "NoSchedule");
        }
        return tolerations;
    }

    private static void addIfMissing(List<Toleration> tolerations, String key, String effect) {
        Toleration wanted = new TolerationBuilder().withKey(key).withOperator("Exists").withEffect(effect).build();
        // Upstream replaces a toleration with the same key and effect, keeping one per pair.
        tolerations.removeIf(toleration -> key.equals(toleration.getKey()) && effect.equals(toleration.getEffect()));
        tolerations.add(wanted);
    }

    /** Whether a pod of {@code spec} belongs on {@code node}. */
    static Eligibility eligibility(PodSpec spec, Node node) {
        String nodeName = node.getMetadata().getName();
        if (spec.getNodeName() != null && !spec.getNodeName().isEmpty() && !spec.getNodeName().equals(nodeName)) {
            return new Eligibility(false, false);
        }
        if (!fitsNodeSelector(spec, node) || !fitsRequiredAffinity(spec.getAffinity(), node)) {
            return new Eligibility(false, false);
        }
        List<Toleration> tolerations = addDaemonTolerations(spec.getTolerations(), Boolean.TRUE.equals(spec.getHostNetwork()));
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
        boolean toleratesNoSchedule = true;
        boolean toleratesNoExecute = true;
        for (Taint taint : taints) {
            boolean tolerated = tolerations.stream().anyMatch(toleration -> tolerates(toleration, taint));
            if (tolerated) {
                continue;
            }
            if ("NoSchedule".equals(taint.getEffect())) {
                toleratesNoSchedule = false;
            } else if ("NoExecute".equals(taint.getEffect())) {
                toleratesNoExecute = false;
            }
        }
        return new Eligibility(toleratesNoSchedule && toleratesNoExecute, toleratesNoExecute);
    }

    /** Upstream's {@code Toleration.ToleratesTaint}. */
    static boolean tolerates(Toleration toleration, Taint taint) {
        if (toleration.getEffect() != null && !toleration.getEffect().isEmpty() && !toleration.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (toleration.getKey() != null && !toleration.getKey().isEmpty() && !toleration.getKey().equals(taint.getKey())) {
            return false;
        }
        String operator = toleration.getOperator() == null || toleration.getOperator().isEmpty() ? "Equal" : toleration.getOperator();
        return switch (operator) {
            case "Exists" -> true;
            case "Equal" -> Objects.equals(emptyIfNull(toleration.getValue()), emptyIfNull(taint.getValue()));
            default -> false;
        };
    }

    private static boolean fitsNodeSelector(PodSpec spec, Node node) {
        Map<String, String> selector = spec.getNodeSelector();
        if (selector == null || selector.isEmpty()) {
            return true;
        }
        Map<String, String> labels = labels(node);
        return selector.entrySet().stream().allMatch(entry -> entry.getValue().equals(labels.get(entry.getKey())));
    }

    private static boolean fitsRequiredAffinity(Affinity affinity, Node node) {
        if (affinity == null || affinity.getNodeAffinity() == null || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return true;
        }
        List<NodeSelectorTerm> terms = affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms();
        if (terms == null || terms.isEmpty()) {
            return false;
        }
        // Terms are ORed; the requirements inside one term are ANDed; an empty term matches nothing.
        return terms.stream().anyMatch(term -> termMatches(term, node));
    }

    private static boolean termMatches(NodeSelectorTerm term, Node node) {
        List<NodeSelectorRequirement> expressions = term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
        List<NodeSelectorRequirement> fields = term.getMatchFields() == null ? List.of() : term.getMatchFields();
        if (expressions.isEmpty() && fields.isEmpty()) {
            return false;
        }
        Map<String, String> labels = labels(node);
        for (NodeSelectorRequirement requirement : expressions) {
            if (!requirementMatches(requirement, labels.get(requirement.getKey()), labels.containsKey(requirement.getKey()))) {
                return false;
            }
        }
        for (NodeSelectorRequirement requirement : fields) {
            if (!NODE_NAME_FIELD.equals(requirement.getKey()) || !requirementMatches(requirement, node.getMetadata().getName(), true)) {
                return false;
            }
        }
        return true;
    }

    private static boolean requirementMatches(NodeSelectorRequirement requirement, String value, boolean present) {
        List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        return switch (requirement.getOperator()) {
            case "In" -> present && values.contains(value);
            case "NotIn" -> !present || !values.contains(value);
            case "Exists" -> present;
            case "DoesNotExist" -> !present;
            case "Gt", "Lt" -> present && values.size() == 1 && compareNumbers(value, values.get(0), requirement.getOperator());
            default -> false;
        };
    }

    private static boolean compareNumbers(String value, String bound, String operator) {
        try {
            long left = Long.parseLong(value);
            long right = Long.parseLong(bound);
            return "Gt".equals(operator) ? left > right : left < right;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Pins a pod to {@code nodeName} with a required matchFields term, replacing other required terms. */
    static Affinity withNodeNameAffinity(Affinity affinity, String nodeName) {
        NodeSelectorTerm term = new NodeSelectorTermBuilder()
                .withMatchFields(new NodeSelectorRequirementBuilder().withKey(NODE_NAME_FIELD).withOperator("In").withValues(nodeName).build())
                .build();
        Affinity result = affinity == null ? new Affinity() : affinity;
        NodeAffinity nodeAffinity = result.getNodeAffinity() == null ? new NodeAffinity() : result.getNodeAffinity();
        NodeSelector required = new NodeSelector(new ArrayList<>(List.of(term)));
        nodeAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(required);
        result.setNodeAffinity(nodeAffinity);
        return result;
    }

    /** The node a daemon pod is meant for: its nodeName, or the node its matchFields affinity names. */
    static Optional<String> targetNode(Pod pod) {
        if (pod.getSpec() == null) {
            return Optional.empty();
        }
        if (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty()) {
            return Optional.of(pod.getSpec().getNodeName());
        }
        Affinity affinity = pod.getSpec().getAffinity();
        if (affinity == null || affinity.getNodeAffinity() == null || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
            return Optional.empty();
        }
        for (NodeSelectorTerm term : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()) {
            if (term.getMatchFields() == null) {
                continue;
            }
            for (NodeSelectorRequirement requirement : term.getMatchFields()) {
                if (NODE_NAME_FIELD.equals(requirement.getKey()) && "In".equals(requirement.getOperator())
                        && requirement.getValues() != null && requirement.getValues().size() == 1) {
                    return Optional.of(requirement.getValues().get(0));
                }
            }
        }
        return Optional.empty();
    }

    private static Map<String, String> labels(Node node) {
        return node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    }

    private static String emptyIfNull(String value) {
        return value == null ? "" : value;
    }
}
