package io.k4j.apiserver.registry.batch.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.PodTemplateRules;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Upstream's {@code validateJobSpec}: the rules of a job spec, shared by Jobs and the job template of CronJobs.
 * Stateless and thread-safe.
 */
public final class JobSpecRules {
    private static final int MAX_PARALLELISM_FOR_INDEXED_JOB = 100000;
    private static final int MAX_COMPLETIONS_FOR_INDEXED_JOB = 100000;
    private static final int MAX_POD_FAILURE_POLICY_RULES = 20;
    private static final int MAX_EXIT_CODE_VALUES = 255;
    private static final int MAX_POD_CONDITION_PATTERNS = 20;
    private static final int MAX_SUCCESS_POLICY_RULES = 20;
    private static final int MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
    private static final List<String> ACTIONS = List.of("Count", "FailIndex", "FailJob", "Ignore");
    private static final List<String> EXIT_CODE_OPERATORS = List.of("In", "NotIn");
    private static final List<String> CONDITION_STATUSES = List.of("False", "True", "Unknown");

    private JobSpecRules() {}

    /**
     * @param spec the job spec
     * @param path its field path, e.g. {@code spec} or {@code spec.jobTemplate.spec}
     */
    public static void validate(FieldErrors errors, JsonNode spec, String path, PodTemplateRules podTemplates) {
        for (String field : List.of("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex", "maxFailedIndexes")) {
            Validators.nonNegative(errors, spec, path + "." + field, field);
        }
        String completionMode = Json.text(spec, "completionMode");
        if (completionMode != null) {
            if (!completionMode.equals("NonIndexed") && !completionMode.equals("Indexed")) {
                errors.add(FieldError.notSupported(path + ".completionMode", completionMode, List.of("NonIndexed", "Indexed")));
            }
            if (completionMode.equals("Indexed")) {
                Long completions = Json.integer(spec, "completions");
                Long parallelism = Json.integer(spec, "parallelism");
                if (completions == null) {
                    errors.add(FieldError.required(path + ".completions", "when completion mode is Indexed"));
                }
                if (parallelism != null && parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
                    errors.add(FieldError.invalid(path + ".parallelism", parallelism, "must be less than or equal to " + MAX_PARALLELISM_FOR_INDEXED_JOB + " when completion mode is Indexed"));
                }
                Long maxFailedIndexes = Json.integer(spec, "maxFailedIndexes");
                if (completions != null && maxFailedIndexes != null && maxFailedIndexes > completions) {
                    errors.add(FieldError.invalid(path + ".maxFailedIndexes", maxFailedIndexes, "must be less than or equal to completions"));
                }
                if (completions != null && completions > MAX_COMPLETIONS_FOR_INDEXED_JOB && !Json.present(spec, "backoffLimitPerIndex")) {
                    errors.add(FieldError.invalid(path + ".completions", completions, "must be less than or equal to " + MAX_COMPLETIONS_FOR_INDEXED_JOB + " when completion mode is Indexed"));
                }
            }
        }
        if (completionMode == null || completionMode.equals("NonIndexed")) {
            Long backoffLimitPerIndex = Json.integer(spec, "backoffLimitPerIndex");
            if (backoffLimitPerIndex != null) {
                errors.add(FieldError.invalid(path + ".backoffLimitPerIndex", backoffLimitPerIndex, "requires indexed completion mode"));
            }
            Long maxFailedIndexes = Json.integer(spec, "maxFailedIndexes");
            if (maxFailedIndexes != null) {
                errors.add(FieldError.invalid(path + ".maxFailedIndexes", maxFailedIndexes, "requires indexed completion mode"));
            }
        }
        boolean hasFailurePolicy = Json.present(spec, "podFailurePolicy");
        if (hasFailurePolicy) {
            validatePodFailurePolicy(errors, spec, path + ".podFailurePolicy");
        }
        if (Json.present(spec, "successPolicy")) {
            if (!"Indexed".equals(completionMode)) {
                errors.add(FieldError.invalid(path + ".successPolicy", Validators.display(Json.at(spec, "successPolicy")), "requires indexed completion mode"));
            } else {
                validateSuccessPolicy(errors, spec, path + ".successPolicy");
            }
        }
        String replacementPolicy = Json.text(spec, "podReplacementPolicy");
        if (replacementPolicy != null) {
            if (hasFailurePolicy) {
                if (!replacementPolicy.equals("Failed")) {
                    errors.add(FieldError.notSupported(path + ".podReplacementPolicy", replacementPolicy, List.of("Failed")));
                }
            } else if (!replacementPolicy.equals("Failed") && !replacementPolicy.equals("TerminatingOrFailed")) {
                errors.add(FieldError.notSupported(path + ".podReplacementPolicy", replacementPolicy, List.of("Failed", "TerminatingOrFailed")));
            }
        }
        JsonNode template = Json.at(spec, "template");
        if (template.isObject()) {
            errors.addAll(podTemplates.validate((ObjectNode) template, path + ".template"));
        }
        // Pod defaulting turns an unset restart policy into Always, so both mean the user did not choose.
        String restartPolicy = Json.string(template, "spec", "restartPolicy");
        String restartPath = path + ".template.spec.restartPolicy";
        if (restartPolicy.isEmpty() || restartPolicy.equals("Always")) {
            errors.add(FieldError.required(restartPath, "valid values: \"OnFailure\", \"Never\""));
        } else if (!restartPolicy.equals("OnFailure") && !restartPolicy.equals("Never")) {
            errors.add(FieldError.notSupported(restartPath, restartPolicy, List.of("OnFailure", "Never")));
        } else if (hasFailurePolicy && !restartPolicy.equals("Never")) {
            errors.add(FieldError.invalid(restartPath, restartPolicy, "only \"Never\" is supported when podFailurePolicy is specified"));
        }
    }

    /** Upstream's {@code validatePodFailurePolicy}. */
    private static void validatePodFailurePolicy(FieldErrors errors, JsonNode spec, String path) {
        List<JsonNode> rules = Json.elements(spec, "podFailurePolicy", "rules");
        if (rules.size() > MAX_POD_FAILURE_POLICY_RULES) {
            errors.add(FieldError.tooMany(path + ".rules", rules.size(), MAX_POD_FAILURE_POLICY_RULES));
        }
        Set<String> containerNames = new HashSet<>();
        for (String list : List.of("containers", "initContainers")) {
            Json.elements(spec, "template", "spec", list).forEach(container -> containerNames.add(Json.string(container, "name")));
        }
        for (int i = 0; i < rules.size(); i++) {
            JsonNode rule = rules.get(i);
            String rulePath = path + ".rules[" + i + "]";
            String action = Json.string(rule, "action");
            if (action.isEmpty()) {
                errors.add(FieldError.required(rulePath + ".action", "valid values: " + goQuotedList(ACTIONS)));
            } else if (action.equals("FailIndex")) {
                if (!Json.present(spec, "backoffLimitPerIndex")) {
                    errors.add(FieldError.invalid(rulePath + ".action", action, "requires the backoffLimitPerIndex to be set"));
                }
            } else if (!ACTIONS.contains(action)) {
                errors.add(FieldError.notSupported(rulePath + ".action", action, ACTIONS));
            }
            boolean hasExitCodes = Json.present(rule, "onExitCodes");
            boolean hasConditions = Json.size(rule, "onPodConditions") > 0;
            if (hasExitCodes) {
                validateExitCodes(errors, Json.at(rule, "onExitCodes"), rulePath + ".onExitCodes", containerNames);
            }
            if (hasConditions) {
                validateConditionPatterns(errors, Json.elements(rule, "onPodConditions"), rulePath + ".onPodConditions");
            }
            // Upstream omits the value here; the closest this error type can show is null.
            if (hasExitCodes && hasConditions) {
                errors.add(FieldError.invalid(rulePath, null, "specifying both OnExitCodes and OnPodConditions is not supported"));
            }
            if (!hasExitCodes && !hasConditions) {
                errors.add(FieldError.invalid(rulePath, null, "specifying one of OnExitCodes and OnPodConditions is required"));
            }
        }
    }

    private static void validateExitCodes(FieldErrors errors, JsonNode requirement, String path, Set<String> containerNames) {
        String operator = Json.string(requirement, "operator");
        if (operator.isEmpty()) {
            errors.add(FieldError.required(path + ".operator", "valid values: " + goQuotedList(EXIT_CODE_OPERATORS)));
        } else if (!EXIT_CODE_OPERATORS.contains(operator)) {
            errors.add(FieldError.notSupported(path + ".operator", operator, EXIT_CODE_OPERATORS));
        }
        String containerName = Json.text(requirement, "containerName");
        if (containerName != null && !containerNames.contains(containerName)) {
            errors.add(FieldError.invalid(path + ".containerName", containerName, "must be one of the container or initContainer names in the pod template"));
        }
        List<Long> values = Json.elements(requirement, "values").stream().map(JsonNode::asLong).toList();
        Object shown = new Validators.Literal("[]int32{" + String.join(", ", values.stream().map(String::valueOf).toList()) + "}");
        if (values.isEmpty()) {
            errors.add(FieldError.invalid(path + ".values", new Validators.Literal("[]int32(nil)"), "at least one value is required"));
        } else if (values.size() > MAX_EXIT_CODE_VALUES) {
            errors.add(FieldError.tooMany(path + ".values", values.size(), MAX_EXIT_CODE_VALUES));
        }
        boolean ordered = true;
        Set<Long> unique = new HashSet<>();
        for (int j = 0; j < values.size(); j++) {
            long value = values.get(j);
            if (operator.equals("In") && value == 0) {
                errors.add(FieldError.invalid(path + ".values[" + j + "]", value, "must not be 0 for the In operator"));
            }
            if (!unique.add(value)) {
                errors.add(FieldError.duplicate(path + ".values[" + j + "]", value));
            }
            if (j > 0 && values.get(j - 1) > value) {
                ordered = false;
            }
        }
        if (!ordered) {
            errors.add(FieldError.invalid(path + ".values", shown, "must be ordered"));
        }
    }

    private static void validateConditionPatterns(FieldErrors errors, List<JsonNode> patterns, String path) {
        if (patterns.size() > MAX_POD_CONDITION_PATTERNS) {
            errors.add(FieldError.tooMany(path, patterns.size(), MAX_POD_CONDITION_PATTERNS));
        }
        for (int j = 0; j < patterns.size(); j++) {
            String patternPath = path + "[" + j + "]";
            String conditionType = Json.string(patterns.get(j), "type");
            for (String message : Validators.qualifiedName(conditionType)) {
                errors.add(FieldError.invalid(patternPath + ".type", conditionType, message));
            }
            String status = Json.string(patterns.get(j), "status");
            if (status.isEmpty()) {
                errors.add(FieldError.required(patternPath + ".status", "valid values: " + goQuotedList(CONDITION_STATUSES)));
            } else if (!CONDITION_STATUSES.contains(status)) {
                errors.add(FieldError.notSupported(patternPath + ".status", status, CONDITION_STATUSES));
            }
        }
    }

    /** Go's {@code %q} of a string slice: {@code ["a" "b"]}. */
    private static String goQuotedList(List<String> values) {
        return "[" + String.join(" ", values.stream().map(value -> "\"" + value + "\"").toList()) + "]";
    }

    /** Upstream's {@code validateSuccessPolicy}: each rule names a count, an index set, or both. */
    private static void validateSuccessPolicy(FieldErrors errors, JsonNode spec, String path) {
        List<JsonNode> rules = Json.elements(spec, "successPolicy", "rules");
        if (rules.isEmpty()) {
            errors.add(FieldError.required(path + ".rules", "at least one rules must be specified when the successPolicy is specified"));
        }
        if (rules.size() > MAX_SUCCESS_POLICY_RULES) {
            errors.add(FieldError.tooMany(path + ".rules", rules.size(), MAX_SUCCESS_POLICY_RULES));
        }
        long completions = Json.longValue(spec, "completions");
        for (int i = 0; i < rules.size(); i++) {
            JsonNode rule = rules.get(i);
            String rulePath = path + ".rules[" + i + "]";
            String indexes = Json.text(rule, "succeededIndexes");
            Long count = Json.integer(rule, "succeededCount");
            if (indexes == null && count == null) {
                errors.add(FieldError.required(rulePath, "at least one of succeededCount or succeededIndexes must be specified"));
            }
            long totalIndexes = 0;
            if (indexes != null) {
                if (indexes.length() > MAX_SUCCEEDED_INDEXES_LENGTH) {
                    errors.add(new FieldError(FieldError.Type.TOO_LONG, rulePath + ".succeededIndexes", null, "may not be more than " + MAX_SUCCEEDED_INDEXES_LENGTH + " bytes"));
                }
                try {
                    totalIndexes = countIndexes(indexes, completions);
                } catch (IllegalArgumentException e) {
                    errors.add(FieldError.invalid(rulePath + ".succeededIndexes", indexes, "error parsing succeededIndexes: " + e.getMessage()));
                }
            }
            if (count != null) {
                String countPath = rulePath + ".succeededCount";
                Validators.nonNegative(errors, rule, countPath, "succeededCount");
                if (count > completions) {
                    errors.add(FieldError.invalid(countPath, count, "must be less than or equal to " + completions + " (the number of specified completions)"));
                }
                if (indexes != null && count > totalIndexes) {
                    errors.add(FieldError.invalid(countPath, count, "must be less than or equal to " + totalIndexes + " (the number of indexes in the specified succeededIndexes field)"));
                }
            }
        }
    }

    /**
     * Upstream's {@code validateIndexesFormat}: increasing intervals such as {@code 1,3-5,7} below completions.
     *
     * @return how many indexes the intervals hold
     * @throws IllegalArgumentException with upstream's message when malformed
     */
    static long countIndexes(String indexes, long completions) {
        if (indexes.isEmpty()) {
            return 0;
        }
        Long lastIndex = null;
        long total = 0;
        for (String interval : indexes.split(",", -1)) {
            String[] limits = interval.split("-", -1);
            if (limits.length > 2) {
                throw new IllegalArgumentException("the fragment \"" + interval + "\" violates the requirement that an index interval can have at most two parts separated by '-'");
            }
            long first = index(limits[0], completions);
            long last = first;
            if (limits.length == 2) {
                last = index(limits[1], completions);
                if (first >= last) {
                    throw new IllegalArgumentException("non-increasing order, previous: " + first + ", current: " + last);
                }
            }
            if (lastIndex != null && lastIndex >= first) {
                throw new IllegalArgumentException("non-increasing order, previous: " + lastIndex + ", current: " + first);
            }
            total += last - first + 1;
            lastIndex = last;
        }
        return total;
    }

    private static long index(String text, long completions) {
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cannot convert string to integer for index: \"" + text + "\"");
        }
        if (value >= completions) {
            throw new IllegalArgumentException("too large index: \"" + text + "\"");
        }
        return value;
    }
}
