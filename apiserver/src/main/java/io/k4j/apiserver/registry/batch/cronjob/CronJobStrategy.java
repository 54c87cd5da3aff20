package io.k4j.apiserver.registry.batch.cronjob;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.cron.CronSchedule;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.batch.job.JobSpecRules;
import io.k4j.apiserver.registry.generic.TableColumn;
import io.k4j.apiserver.registry.groups.Ages;
import io.k4j.apiserver.registry.groups.Json;
import io.k4j.apiserver.registry.groups.LabelSelectors;
import io.k4j.apiserver.registry.groups.PodTemplateRules;
import io.k4j.apiserver.registry.groups.SpecAndStatusStrategy;
import io.k4j.apiserver.registry.groups.Templates;
import io.k4j.apiserver.registry.groups.Validators;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The rules of batch/v1 CronJobs, as upstream's {@code pkg/registry/batch/cronjob/strategy.go}, the batch/v1
 * defaults and {@code ValidateCronJobCreate}/{@code ValidateCronJobUpdate}: a valid cron schedule without a
 * {@code TZ} prefix (use {@code timeZone}), a known IANA time zone, names of at most 52 characters and a job
 * template whose selector is left to the controller. Stateless and thread-safe.
 */
public final class CronJobStrategy extends SpecAndStatusStrategy {
    private static final Pattern TIME_ZONE_PART = Pattern.compile("[A-Za-z.\\-_0-9+]{1,14}");
    private static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Schedule", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
            TableColumn.string("Timezone", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones."),
            new TableColumn("Suspend", "boolean", "", "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.", 0),
            TableColumn.integer("Active", "A list of pointers to currently running jobs."),
            TableColumn.string("Last Schedule", "Information when was the last time the job was successfully scheduled."),
            TableColumn.ageColumn(),
            TableColumn.wide("Containers", "Names of each container in the template."),
            TableColumn.wide("Images", "Images referenced by each container in the template."),
            TableColumn.wide("Selector", "A label query over pods that should match the pod count."));

    private final PodTemplateRules podTemplates;

    public CronJobStrategy(ResourceType type, PodTemplateRules podTemplates, Ages ages) {
        super(type, ages);
        this.podTemplates = requireNonNull(podTemplates, "podTemplates is null");
    }

    @Override
    public void applyDefaults(ObjectNode object) {
        ObjectNode spec = Json.object(object, "spec");
        Json.putIfAbsent(spec, "concurrencyPolicy", "Allow");
        Json.putIfAbsent(spec, "suspend", false);
        Json.putIfAbsent(spec, "successfulJobsHistoryLimit", 3);
        Json.putIfAbsent(spec, "failedJobsHistoryLimit", 1);
        podTemplates.applyDefaults(Json.object(spec, "jobTemplate", "spec", "template"));
    }

    @Override
    public FieldErrors validate(ObjectNode object) {
        FieldErrors errors = validateSpec(Json.at(object, "spec"), null);
        String name = Json.string(object, "metadata", "name");
        // The controller names jobs <cronjob>-<11 characters of schedule time>, and job names are DNS labels.
        if (name.length() > 52) {
            errors.add(FieldError.invalid("metadata.name", name, "must be no more than 52 characters"));
        }
        return errors;
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
        return validateSpec(Json.at(newObject, "spec"), Json.at(oldObject, "spec"));
    }

    private FieldErrors validateSpec(JsonNode spec, JsonNode oldSpec) {
        FieldErrors errors = new FieldErrors();
        String schedule = Json.string(spec, "schedule");
        String timeZone = Json.text(spec, "timeZone");
        if (schedule.isEmpty()) {
            errors.add(FieldError.required("spec.schedule", ""));
        } else {
            boolean allowTimeZoneInSchedule = oldSpec != null && Json.string(oldSpec, "schedule").contains("TZ");
            validateSchedule(errors, schedule, allowTimeZoneInSchedule, timeZone);
        }
        Validators.nonNegative(errors, spec, "spec.startingDeadlineSeconds", "startingDeadlineSeconds");
        if (oldSpec == null || !Objects.equals(Json.text(oldSpec, "timeZone"), timeZone)) {
            validateTimeZone(errors, timeZone);
        }
        String concurrencyPolicy = Json.string(spec, "concurrencyPolicy");
        switch (concurrencyPolicy) {
            case "Allow", "Forbid", "Replace" -> {
            }
            case "" -> errors.add(FieldError.required("spec.concurrencyPolicy", ""));
            default -> errors.add(FieldError.notSupported("spec.concurrencyPolicy", concurrencyPolicy, List.of("Allow", "Forbid", "Replace")));
        }
        JsonNode jobSpec = Json.at(spec, "jobTemplate", "spec");
        JobSpecRules.validate(errors, jobSpec, "spec.jobTemplate.spec", podTemplates);
        if (Json.present(jobSpec, "selector")) {
            errors.add(FieldError.invalid("spec.jobTemplate.spec.selector", Validators.display(Json.at(jobSpec, "selector")), "`selector` will be auto-generated"));
        }
        if (Json.bool(jobSpec, "manualSelector")) {
            errors.add(FieldError.notSupported("spec.jobTemplate.spec.manualSelector", new Validators.Literal("true"), List.of("nil", "false")));
        }
        Validators.nonNegative(errors, spec, "spec.successfulJobsHistoryLimit", "successfulJobsHistoryLimit");
        Validators.nonNegative(errors, spec, "spec.failedJobsHistoryLimit", "failedJobsHistoryLimit");
        return errors;
    }

    private static void validateSchedule(FieldErrors errors, String schedule, boolean allowTimeZoneInSchedule, String timeZone) {
        try {
            CronSchedule.parse(schedule);
        } catch (CronSchedule.InvalidScheduleException e) {
            errors.add(FieldError.invalid("spec.schedule", schedule, e.getMessage()));
        }
        if (allowTimeZoneInSchedule && schedule.contains("TZ") && timeZone != null) {
            errors.add(FieldError.invalid("spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
        } else if (!allowTimeZoneInSchedule && schedule.contains("TZ")) {
            errors.add(FieldError.invalid("spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
        }
    }

    private static void validateTimeZone(FieldErrors errors, String timeZone) {
        if (timeZone == null) {
            return;
        }
        String field = "spec.timeZone";
        if (timeZone.isEmpty()) {
            errors.add(FieldError.invalid(field, timeZone, "timeZone must be nil or non-empty string"));
            return;
        }
        for (String part : timeZone.split("/", -1)) {
            if (part.equals(".") || part.equals("..") || part.startsWith("-") || !TIME_ZONE_PART.matcher(part).matches()) {
                errors.add(FieldError.invalid(field, timeZone, "unknown time zone " + timeZone));
                return;
            }
        }
        if (timeZone.toLowerCase(Locale.ROOT).equals("local")) {
            errors.add(FieldError.invalid(field, timeZone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
        }
        if (CronSchedule.loadLocation(timeZone).isEmpty()) {
            errors.add(FieldError.invalid(field, timeZone, "unknown time zone " + timeZone));
        }
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode object) {
        JsonNode spec = Json.at(object, "spec");
        String lastSchedule = Json.present(object, "status", "lastScheduleTime")
                ? ages.since(Json.text(object, "status", "lastScheduleTime"))
                : "<none>";
        String timeZone = Json.text(spec, "timeZone");
        String suspend = Json.present(spec, "suspend") ? (Json.bool(spec, "suspend") ? "True" : "False") : "<unset>";
        List<Object> cells = new ArrayList<>();
        cells.add(Json.string(object, "metadata", "name"));
        cells.add(Json.string(spec, "schedule"));
        cells.add(timeZone == null ? "<none>" : timeZone);
        cells.add(suspend);
        cells.add((long) Json.size(object, "status", "active"));
        cells.add(lastSchedule);
        cells.add(ages.since(Json.text(object, "metadata", "creationTimestamp")));
        cells.addAll(Templates.containerCells(Json.at(spec, "jobTemplate", "spec", "template", "spec")));
        cells.add(LabelSelectors.format(Json.at(spec, "jobTemplate", "spec", "selector")));
        return cells;
    }
}
