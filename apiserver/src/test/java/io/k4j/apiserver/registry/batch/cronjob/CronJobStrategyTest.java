package io.k4j.apiserver.registry.batch.cronjob;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.POD_TEMPLATES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.podTemplate;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class CronJobStrategyTest {
    private final CronJobStrategy strategy = new CronJobStrategy(type("batch", "cronjobs"), POD_TEMPLATES, AGES);

    private ObjectNode cronJob(String name, String schedule) {
        ObjectNode object = json("{'metadata': {'name': '" + name + "', 'creationTimestamp': '2024-04-30T12:00:00Z'},"
                + " 'spec': {'schedule': '" + schedule + "', 'jobTemplate': {'spec': {'template': " + podTemplate("{}", "OnFailure") + "}}}}");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsPolicySuspendAndHistoryLimits() {
        ObjectNode object = cronJob("hello", "*/1 * * * *");

        assertThat(object.at("/spec/concurrencyPolicy").asText()).isEqualTo("Allow");
        assertThat(object.at("/spec/suspend").asBoolean(true)).isFalse();
        assertThat(object.at("/spec/successfulJobsHistoryLimit").asInt()).isEqualTo(3);
        assertThat(object.at("/spec/failedJobsHistoryLimit").asInt()).isEqualTo(1);
        assertThat(object.at("/spec/jobTemplate/spec/template/spec/dnsPolicy").asText()).isEqualTo("ClusterFirst");
        assertThat(object.at("/spec/jobTemplate/spec/backoffLimit").isMissingNode()).isTrue();
        assertThat(messages(strategy.validate(object))).isEmpty();
    }

    @Test
    void rejectsABadScheduleAndALongName() {
        ObjectNode object = cronJob("a-very-long-cron-job-name-that-goes-on-and-on-forever-x", "61 * * * *");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61",
                "metadata.name: Invalid value: \"a-very-long-cron-job-name-that-goes-on-and-on-forever-x\": must be no more than 52 characters");
    }

    @Test
    void timeZonesBelongInTheirField() {
        assertThat(messages(strategy.validate(cronJob("tz", "TZ=UTC 0 * * * *"))))
                .containsExactly("spec.schedule: Invalid value: \"TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead");

        ObjectNode zoned = cronJob("zoned", "0 * * * *");
        ((ObjectNode) zoned.get("spec")).put("timeZone", "Europe/Berlin");
        assertThat(messages(strategy.validate(zoned))).isEmpty();

        ((ObjectNode) zoned.get("spec")).put("timeZone", "Mars/Olympus");
        assertThat(messages(strategy.validate(zoned))).containsExactly("spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus");

        ((ObjectNode) zoned.get("spec")).put("timeZone", "Local");
        assertThat(messages(strategy.validate(zoned)))
                .containsExactly("spec.timeZone: Invalid value: \"Local\": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
    }

    @Test
    void anOldScheduleWithTimeZoneMayStay() {
        ObjectNode old = cronJob("tz", "TZ=UTC 0 * * * *");
        ObjectNode updated = old.deepCopy();
        ((ObjectNode) updated.get("spec")).put("suspend", true);

        assertThat(messages(strategy.validateUpdate(updated, old))).isEmpty();
    }

    @Test
    void theJobTemplateLeavesTheSelectorToTheController() {
        ObjectNode object = cronJob("hello", "@hourly");
        ((ObjectNode) object.get("spec")).put("concurrencyPolicy", "Sometimes");
        ((ObjectNode) object.at("/spec/jobTemplate/spec")).put("manualSelector", true).putObject("selector").putObject("matchLabels").put("a", "b");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\"",
                "spec.jobTemplate.spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\"}}: `selector` will be auto-generated",
                "spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: \"nil\", \"false\"");
    }

    @Test
    void printsScheduleTimezoneSuspendActiveAndLastSchedule() {
        ObjectNode object = cronJob("hello", "*/5 * * * *");
        object.set("status", json("{'active': [{'name': 'hello-1'}], 'lastScheduleTime': '2024-05-01T11:55:00Z'}"));

        assertThat(strategy.tableColumns()).extracting(column -> column.name() + ":" + column.type()).containsExactly(
                "Name:string", "Schedule:string", "Timezone:string", "Suspend:boolean", "Active:integer", "Last Schedule:string", "Age:string",
                "Containers:string", "Images:string", "Selector:string");
        assertThat(strategy.tableRow(object)).containsExactly("hello", "*/5 * * * *", "<none>", "False", 1L, "5m", "24h",
                "web,sidecar", "nginx:1.25,busybox", "<none>");
    }
}
