package io.k4j.controllers.job;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicy;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnExitCodesRequirement;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyOnPodConditionsPattern;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Matches a failed pod against a Job's {@code podFailurePolicy}, as upstream's {@code matchPodFailurePolicy}. Stateless. */
final class PodFailurePolicies {
    /** What the first matching rule decides. */
    enum Action {
        FAIL_JOB,
        FAIL_INDEX,
        IGNORE,
        COUNT
    }

    /**
     * The decision about one failed pod.
     *
     * @param message the message of a {@code FailJob} (or {@code FailIndex}) match, empty otherwise
     */
    record Match(Action action, Optional<String> message) {
        Match {
            requireNonNull(action, "action is null");
            requireNonNull(message, "message is null");
        }

        boolean countsAsFailure() {
            return action != Action.IGNORE;
        }
    }

    private static final Match NO_MATCH = new Match(Action.COUNT, Optional.empty());

    private PodFailurePolicies() {}

    /** The first rule that matches {@code pod}; no policy or no matching rule counts the failure. */
    static Match match(PodFailurePolicy policy, Pod pod) {
        if (policy == null || policy.getRules() == null) {
            return NO_MATCH;
        }
        List<PodFailurePolicyRule> rules = policy.getRules();
        for (int index = 0; index < rules.size(); index++) {
            PodFailurePolicyRule rule = rules.get(index);
            Action action = action(rule.getAction());
            if (action == null) {
                continue;
            }
            Optional<String> reason = Optional.empty();
            if (rule.getOnExitCodes() != null) {
                Optional<ContainerStatus> container = matchingContainer(pod, rule.getOnExitCodes());
                if (container.isPresent()) {
                    reason = Optional.of(String.format("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
                            container.get().getName(), pod.getMetadata().getNamespace(), pod.getMetadata().getName(),
                            container.get().getState().getTerminated().getExitCode(), rule.getAction(), index));
                }
            } else if (rule.getOnPodConditions() != null) {
                Optional<PodCondition> condition = matchingCondition(pod, rule.getOnPodConditions());
                if (condition.isPresent()) {
                    reason = Optional.of(String.format("Pod %s/%s has condition %s matching %s rule at index %d",
                            pod.getMetadata().getNamespace(), pod.getMetadata().getName(), condition.get().getType(), rule.getAction(), index));
                }
            }
            if (reason.isPresent()) {
                return switch (action) {
                    case FAIL_JOB, FAIL_INDEX -> new Match(action, reason);
                    case IGNORE, COUNT -> new Match(action, Optional.empty());
                };
            }
        }
        return NO_MATCH;
    }

    private static Action action(String action) {
        if (action == null) {
            return null;
        }
        return switch (action) {
            case "FailJob" -> Action.FAIL_JOB;
            case "FailIndex" -> Action.FAIL_INDEX;
            case "Ignore" -> Action.IGNORE;
            case "Count" -> Action.COUNT;
            // An action this version does not know is skipped, as upstream skips unknown actions.
            default -> null;
        };
    }

    private static Optional<ContainerStatus> matchingContainer(Pod pod, PodFailurePolicyOnExitCodesRequirement requirement) {
        List<ContainerStatus> statuses = new ArrayList<>();
        if (pod.getStatus() != null) {
            if (pod.getStatus().getContainerStatuses() != null) {
                statuses.addAll(pod.getStatus().getContainerStatuses());
            }
            if (pod.getStatus().getInitContainerStatuses() != null) {
                statuses.addAll(pod.getStatus().getInitContainerStatuses());
            }
        }
        List<Integer> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        for (ContainerStatus status : statuses) {
            if (requirement.getContainerName() != null && !requirement.getContainerName().equals(status.getName())) {
                continue;
            }
            if (status.getState() == null || status.getState().getTerminated() == null) {
                continue;
            }
            Integer exitCode = status.getState().getTerminated().getExitCode();
            // Containers that exited successfully never match, whatever the operator.
            if (exitCode == null || exitCode == 0) {
                continue;
            }
            boolean listed = values.contains(exitCode);
            boolean matches = "In".equals(requirement.getOperator()) ? listed : "NotIn".equals(requirement.getOperator()) && !listed;
            if (matches) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }

    private static Optional<PodCondition> matchingCondition(Pod pod, List<PodFailurePolicyOnPodConditionsPattern> patterns) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        for (PodFailurePolicyOnPodConditionsPattern pattern : patterns) {
            String status = pattern.getStatus() == null ? "True" : pattern.getStatus();
            for (PodCondition condition : pod.getStatus().getConditions()) {
                if (condition.getType().equals(pattern.getType()) && status.equals(condition.getStatus())) {
                    return Optional.of(condition);
                }
            }
        }
        return Optional.empty();
    }
}
