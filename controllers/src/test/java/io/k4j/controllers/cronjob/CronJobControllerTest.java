package io.k4j.controllers.cronjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.api.cron.CronSchedule;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CronJobControllerTest {
    private static final String KEY = "default/hello";
    private static final Instant CREATED = Instant.parse("2026-01-01T00:00:30Z");

    private final CacheImpl<CronJob> cronJobCache = new CacheImpl<>();
    private final CacheImpl<Job> jobCache = new CacheImpl<>();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final MutableClock clock = new MutableClock(CREATED);
    private final List<String> deletedJobs = new ArrayList<>();
    private final CronJobWriter writer = new CronJobWriter() {
        @Override
        public CronJob updateStatus(CronJob cronJob) {
            cronJobCache.put(new CronJobBuilder(cronJob).build());
            return cronJob;
        }

        @Override
        public Job createJob(Job job) {
            if (jobCache.getByKey("default/" + job.getMetadata().getName()) != null) {
                throw new KubernetesClientException("exists", 409, null);
            }
            Job created = new JobBuilder(job).editMetadata().withUid(UUID.randomUUID().toString()).withResourceVersion("1")
                    .withCreationTimestamp(clock.instant().toString()).endMetadata().build();
            jobCache.put(created);
            return created;
        }

        @Override
        public Optional<Job> getJob(String namespace, String name) {
            return Optional.ofNullable(jobCache.getByKey(namespace + "/" + name));
        }

        @Override
        public void deleteJob(String namespace, String name) {
            deletedJobs.add(name);
            jobCache.remove(jobCache.getByKey(namespace + "/" + name));
        }
    };
    private final CronJobController controller = new CronJobController(new Lister<>(cronJobCache), new Lister<>(jobCache), writer, events, clock, ZoneOffset.UTC);

    @Test
    void createsOneJobPerActivationNamedAfterItsMinuteAndRequeuesForTheNext() {
        cronJobCache.put(cronJob("*/1 * * * *").build());

        // Created at 00:00:30: nothing is due before 00:01:00, which is when it wants to run again.
        assertThat(sync()).contains(Duration.ofSeconds(30).plus(CronJobController.NEXT_SCHEDULE_DELTA));
        assertThat(jobCache.list()).isEmpty();

        clock.advance(Duration.ofSeconds(30));
        Optional<Duration> requeue = sync();

        Instant scheduled = Instant.parse("2026-01-01T00:01:00Z");
        String name = "hello-" + scheduled.getEpochSecond() / 60;
        Job job = jobCache.getByKey("default/" + name);
        assertThat(job).isNotNull();
        assertThat(job.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("CronJob");
        assertThat(job.getMetadata().getAnnotations()).containsEntry(CronJobController.SCHEDULED_TIMESTAMP_ANNOTATION, "2026-01-01T00:01:00Z");
        assertThat(job.getMetadata().getLabels()).containsEntry("app", "hello");
        assertThat(status().getActive()).singleElement().satisfies(reference -> assertThat(reference.getName()).isEqualTo(name));
        assertThat(status().getLastScheduleTime()).isEqualTo("2026-01-01T00:01:00Z");
        assertThat(requeue).contains(Duration.ofMinutes(1).plus(CronJobController.NEXT_SCHEDULE_DELTA));
        assertThat(events.events()).contains("Normal SuccessfulCreate Created job " + name);

        // A second sync in the same minute does nothing.
        sync();
        assertThat(jobCache.list()).hasSize(1);
    }

    @Test
    void removesFinishedJobsFromActiveAndRecordsTheLastSuccess() {
        cronJobCache.put(cronJob("*/1 * * * *").build());
        clock.advance(Duration.ofSeconds(30));
        sync();
        Job job = jobCache.list().get(0);
        jobCache.put(finished(job, "Complete", "2026-01-01T00:01:20Z"));

        clock.advance(Duration.ofSeconds(20));
        sync();

        assertThat(status().getActive()).isEmpty();
        assertThat(status().getLastSuccessfulTime()).isEqualTo("2026-01-01T00:01:20Z");
        assertThat(events.events()).contains("Normal SawCompletedJob Saw completed job: " + job.getMetadata().getName() + ", condition: Complete");
    }

    @Test
    void forbidSkipsWhileAJobRunsAndReplaceDeletesIt() {
        cronJobCache.put(cronJob("*/1 * * * *").editSpec().withConcurrencyPolicy("Forbid").endSpec().build());
        clock.advance(Duration.ofSeconds(30));
        sync();
        clock.advance(Duration.ofMinutes(1));
        sync();
        assertThat(jobCache.list()).hasSize(1);
        assertThat(events.events()).contains("Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid");

        cronJobCache.put(new CronJobBuilder(cronJobCache.getByKey(KEY)).editSpec().withConcurrencyPolicy("Replace").endSpec().build());
        sync();
        assertThat(deletedJobs).hasSize(1);
        assertThat(jobCache.list()).hasSize(1);
        assertThat(jobCache.list().get(0).getMetadata().getName()).isEqualTo("hello-" + Instant.parse("2026-01-01T00:02:00Z").getEpochSecond() / 60);
    }

    @Test
    void suspendedCronJobsCreateNothing() {
        cronJobCache.put(cronJob("*/1 * * * *").editSpec().withSuspend(true).endSpec().build());
        clock.advance(Duration.ofMinutes(5));

        assertThat(sync()).isEmpty();
        assertThat(jobCache.list()).isEmpty();
    }

    @Test
    void runsOnlyTheMostRecentMissedActivationAndWarnsAboutTooManyMissed() {
        cronJobCache.put(cronJob("*/1 * * * *").build());
        clock.advance(Duration.ofHours(3));

        sync();

        assertThat(jobCache.list()).singleElement().satisfies(job ->
                assertThat(job.getMetadata().getName()).isEqualTo("hello-" + Instant.parse("2026-01-01T03:00:00Z").getEpochSecond() / 60));
        assertThat(events.events()).anyMatch(event -> event.startsWith("Warning TooManyMissedTimes too many missed start times: 180."));
    }

    @Test
    void startingDeadlineLimitsHowFarBackActivationsCount() {
        cronJobCache.put(cronJob("0 * * * *").editSpec().withStartingDeadlineSeconds(60L).endSpec().build());
        // The 01:00 activation was missed by more than the deadline: nothing starts at 01:05.
        clock.advance(Duration.ofMinutes(64).plusSeconds(30));

        assertThat(sync()).contains(Duration.ofMinutes(55).plus(CronJobController.NEXT_SCHEDULE_DELTA));
        assertThat(jobCache.list()).isEmpty();
        assertThat(events.events()).noneMatch(event -> event.contains("TooManyMissedTimes"));
    }

    @Test
    void usesTheTimeZoneOfTheCronJob() {
        cronJobCache.put(cronJob("0 9 * * *").editSpec().withTimeZone("Asia/Tokyo").endSpec().build());
        // 09:00 in Tokyo is 00:00 UTC; the CronJob was created just after, so the next run is a day later.
        assertThat(sync()).contains(Duration.ofHours(24).minusSeconds(30).plus(CronJobController.NEXT_SCHEDULE_DELTA));

        clock.advance(Duration.ofHours(24));
        sync();
        Job job = jobCache.list().get(0);
        assertThat(job.getMetadata().getAnnotations()).containsEntry(CronJobController.SCHEDULED_TIMESTAMP_ANNOTATION, "2026-01-02T09:00:00+09:00");
    }

    @Test
    void historyLimitsDeleteTheOldestFinishedJobs() {
        cronJobCache.put(cronJob("*/1 * * * *").editSpec().withSuccessfulJobsHistoryLimit(1).withFailedJobsHistoryLimit(1).endSpec().build());
        for (int minute = 0; minute < 3; minute++) {
            clock.advance(Duration.ofMinutes(1));
            sync();
            Job newest = jobCache.list().stream().filter(job -> job.getStatus() == null).findFirst().orElseThrow();
            jobCache.put(finished(newest, "Complete", clock.instant().toString()));
        }

        sync();

        assertThat(deletedJobs).hasSize(2);
        assertThat(jobCache.list()).hasSize(1);
    }

    @Test
    void mostRecentCountsMissedActivations() throws Exception {
        CronSchedule schedule = CronSchedule.parse("*/5 * * * *");
        ScheduleTimes.Due due = ScheduleTimes.mostRecent(schedule, ZoneId.of("UTC"), Instant.parse("2026-01-01T00:00:00Z"), Optional.empty(),
                Instant.parse("2026-01-01T00:17:00Z"));
        assertThat(due.missed()).isEqualTo(3);
        assertThat(due.mostRecent().orElseThrow().toInstant()).isEqualTo(Instant.parse("2026-01-01T00:15:00Z"));

        ScheduleTimes.Due many = ScheduleTimes.mostRecent(CronSchedule.parse("* * * * *"), ZoneId.of("UTC"), Instant.parse("2026-01-01T00:00:00Z"),
                Optional.empty(), Instant.parse("2026-01-10T00:00:30Z"));
        assertThat(many.missed()).isEqualTo(9 * 24 * 60);
        assertThat(many.mostRecent().orElseThrow().toInstant()).isEqualTo(Instant.parse("2026-01-10T00:00:00Z"));
    }

    private Optional<Duration> sync() {
        return controller.sync(KEY);
    }

    private io.fabric8.kubernetes.api.model.batch.v1.CronJobStatus status() {
        return cronJobCache.getByKey(KEY).getStatus();
    }

    private static Job finished(Job job, String type, String at) {
        return new JobBuilder(job).withNewStatus().withStartTime(job.getMetadata().getCreationTimestamp()).withCompletionTime("Complete".equals(type) ? at : null)
                .addToConditions(new JobConditionBuilder().withType(type).withStatus("True").withLastTransitionTime(at).build()).endStatus().build();
    }

    private static CronJobBuilder cronJob(String schedule) {
        return new CronJobBuilder()
                .withNewMetadata().withName("hello").withNamespace("default").withUid("cron-uid").withCreationTimestamp(CREATED.toString()).endMetadata()
                .withNewSpec().withSchedule(schedule).withConcurrencyPolicy("Allow").withSuspend(false)
                .withNewJobTemplate().withNewMetadata().addToLabels("app", "hello").endMetadata()
                .withNewSpec().withNewTemplate().withNewSpec().withRestartPolicy("OnFailure").addNewContainer().withName("hello").withImage("busybox").endContainer()
                .endSpec().endTemplate().endSpec().endJobTemplate()
                .endSpec();
    }
}
