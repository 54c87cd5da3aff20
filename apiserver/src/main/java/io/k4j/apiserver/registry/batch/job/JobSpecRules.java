package io.k4j.apiserver.registry.batch.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.PodTemplateRules;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.List;

/**
 * Upstream's {@code validateJobSpec}: the rules of a job spec, shared by Jobs and the job template of CronJobs.
 * Stateless and thread-safe.
 */
public final class JobSpecRules {
    private static final int MAX_PARALLELISM_FOR_INDEXED_JOB = 100000;
    private static final int MAX_COMPLETIONS_FOR_INDEXED_JOB = 100000;

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
}
