package io.k4j.controllers.namespace;

import io.fabric8.kubernetes.api.model.NamespaceCondition;
import io.fabric8.kubernetes.api.model.NamespaceStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The status conditions the namespace controller keeps while it empties a namespace, as upstream's
 * {@code namespaceConditionUpdater}: each type is True with the failure found in this pass, or False with its "ok"
 * reason and message. Not thread-safe: one per pass.
 */
final class NamespaceConditions {
    static final String DISCOVERY_FAILURE = "NamespaceDeletionDiscoveryFailure";
    static final String GROUP_VERSION_PARSING_FAILURE = "NamespaceDeletionGroupVersionParsingFailure";
    static final String CONTENT_FAILURE = "NamespaceDeletionContentFailure";
    static final String CONTENT_REMAINING = "NamespaceContentRemaining";
    static final String FINALIZERS_REMAINING = "NamespaceFinalizersRemaining";

    private record Ok(String reason, String message) {}

    private static final Map<String, Ok> OK = new LinkedHashMap<>();

    static {
        OK.put(DISCOVERY_FAILURE, new Ok("ResourcesDiscovered", "All resources successfully discovered"));
        OK.put(GROUP_VERSION_PARSING_FAILURE, new Ok("ParsedGroupVersions", "All legacy kube types successfully parsed"));
        OK.put(CONTENT_FAILURE, new Ok("ContentDeleted", "All content successfully deleted, may be waiting on finalization"));
        OK.put(CONTENT_REMAINING, new Ok("ContentRemoved", "All content successfully removed"));
        OK.put(FINALIZERS_REMAINING, new Ok("ContentHasNoFinalizers", "All content-preserving finalizers finished"));
    }

    private final Map<String, NamespaceCondition> failures = new LinkedHashMap<>();
    private final Instant now;

    NamespaceConditions(Instant now) {
        this.now = now.truncatedTo(ChronoUnit.SECONDS);
    }

    void discoveryFailed(List<String> failedGroupVersions) {
        fail(DISCOVERY_FAILURE, "DiscoveryFailed",
                "Discovery failed for some groups, " + failedGroupVersions.size() + " failing: " + String.join(", ", failedGroupVersions));
    }

    void contentDeletionFailed(List<String> errors) {
        if (errors.isEmpty()) {
            return;
        }
        List<String> sorted = errors.stream().sorted().toList();
        fail(CONTENT_FAILURE, "ContentDeletionFailed", "Failed to delete all resource types, " + sorted.size() + " remaining: " + String.join(", ", sorted));
    }

    /** @param remainingByResource instances left per {@code resource.group} */
    void contentRemaining(Map<String, Integer> remainingByResource, Map<String, Integer> remainingByFinalizer) {
        List<String> resources = remainingByResource.entrySet().stream().filter(entry -> entry.getValue() > 0)
                .map(entry -> entry.getKey() + " has " + entry.getValue() + " resource instances").sorted().toList();
        if (!resources.isEmpty()) {
            fail(CONTENT_REMAINING, "SomeResourcesRemain", "Some resources are remaining: " + String.join(", ", resources));
        }
        List<String> finalizers = remainingByFinalizer.entrySet().stream().filter(entry -> entry.getValue() > 0)
                .map(entry -> entry.getKey() + " in " + entry.getValue() + " resource instances").sorted().toList();
        if (!finalizers.isEmpty()) {
            fail(FINALIZERS_REMAINING, "SomeFinalizersRemain", "Some content in the namespace has finalizers remaining: " + String.join(", ", finalizers));
        }
    }

    private void fail(String type, String reason, String message) {
        failures.put(type, condition(type, "True", reason, message));
    }

    /** Brings {@code status}'s conditions in line with this pass; true when anything changed. */
    boolean apply(NamespaceStatus status) {
        List<NamespaceCondition> conditions = status.getConditions() == null ? new ArrayList<>() : new ArrayList<>(status.getConditions());
        boolean changed = false;
        for (Map.Entry<String, Ok> entry : OK.entrySet()) {
            String type = entry.getKey();
            NamespaceCondition wanted = failures.getOrDefault(type, condition(type, "False", entry.getValue().reason(), entry.getValue().message()));
            NamespaceCondition existing = conditions.stream().filter(condition -> type.equals(condition.getType())).findFirst().orElse(null);
            if (existing == null) {
                conditions.add(wanted);
                changed = true;
            } else if (!Objects.equals(existing.getStatus(), wanted.getStatus()) || !Objects.equals(existing.getReason(), wanted.getReason())
                    || !Objects.equals(existing.getMessage(), wanted.getMessage())) {
                if (!Objects.equals(existing.getStatus(), wanted.getStatus())) {
                    existing.setLastTransitionTime(wanted.getLastTransitionTime());
                }
                existing.setStatus(wanted.getStatus());
                existing.setReason(wanted.getReason());
                existing.setMessage(wanted.getMessage());
                changed = true;
            }
        }
        status.setConditions(conditions);
        return changed;
    }

    private NamespaceCondition condition(String type, String status, String reason, String message) {
        NamespaceCondition condition = new NamespaceCondition();
        condition.setType(type);
        condition.setStatus(status);
        condition.setReason(reason);
        condition.setMessage(message);
        condition.setLastTransitionTime(now.toString());
        return condition;
    }
}
