package io.k4j.controllers.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.controllerkit.testing.FakePodControl;
import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JobControllerTest {
    private static final String KEY = "default/pi";

    private final CacheImpl<Job> jobCache = new CacheImpl<>();
    private final CacheImpl<Pod> podCache = new CacheImpl<>();
    private final FakePodControl podControl = new FakePodControl();
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<Job> statusWrites = new ArrayList<>();
    private final JobWriter writer = new JobWriter() {
        @Override
        public Job updateStatus(Job job) {
            Job stored = new JobBuilder(job).editMetadata().withResourceVersion(Integer.toString(statusWrites.size() + 2)).endMetadata().build();
            statusWrites.add(stored);
            jobCache.put(stored);
            return new JobBuilder(stored).build();
        }

        @Override
        public Optional<Job> get(String namespace, String name) {
            return Optional.ofNullable(jobCache.getByKey(namespace + "/" + name));
        }
    };
    private final JobController controller = new JobController(new Lister<>(jobCache), new Lister<>(podCache), writer, podControl, events, clock);

    @Test
    void runsCompletionsWithParallelismAndCountsEachPodOnce() {
        jobCache.put(job(5, 2, 6).build());

        sync();
        assertThat(podControl.created()).hasSize(2);
        Pod first = podControl.created().get(0);
        assertThat(first.getMetadata().getFinalizers()).contains(JobController.TRACKING_FINALIZER);
        assertThat(first.getMetadata().getGenerateName()).isEqualTo("pi-");
        assertThat(first.getMetadata().getOwnerReferences().get(0).getUid()).isEqualTo("job-uid");
        assertThat(currentJob().getStatus().getActive()).isEqualTo(2);
        assertThat(currentJob().getStatus().getStartTime()).isEqualTo("2026-01-01T00:00:00Z");

        for (int round = 0; round < 10 && !JobController.isFinished(currentJob()); round++) {
            observeCreatedPods();
            podCache.list().stream().filter(pod -> !"Succeeded".equals(pod.getStatus().getPhase())).forEach(pod -> finish(pod, "Succeeded", 0));
            sync();
            applyFinalizerRemovals();
            sync();
        }

        Job done = currentJob();
        assertThat(done.getStatus().getSucceeded()).isEqualTo(5);
        assertThat(done.getStatus().getActive()).isZero();
        assertThat(done.getStatus().getUncountedTerminatedPods().getSucceeded()).isEmpty();
        assertThat(done.getStatus().getConditions()).extracting(JobCondition::getType).containsExactly("SuccessCriteriaMet", "Complete");
        assertThat(done.getStatus().getConditions().get(1).getReason()).isEqualTo("CompletionsReached");
        assertThat(done.getStatus().getCompletionTime()).isNotNull();
        assertThat(podControl.created()).hasSize(5);
        assertThat(podCache.list()).noneMatch(JobController::hasTrackingFinalizer);
        assertThat(events.events()).contains("Normal Completed Job completed");
    }

    @Test
    void recordsFinishedPodsAsUncountedBeforeRemovingTheirFinalizers() {
        jobCache.put(job(2, 1, 6).build());
        sync();
        observeCreatedPods();
        finish(podCache.list().get(0), "Succeeded", 0);

        sync();

        // The first write names the pod in uncountedTerminatedPods; the finalizer goes only after that.
        Job firstWrite = statusWrites.get(statusWrites.size() - 2);
        assertThat(firstWrite.getStatus().getUncountedTerminatedPods().getSucceeded()).containsExactly(podCache.list().get(0).getMetadata().getUid());
        assertThat(firstWrite.getStatus().getSucceeded()).isNull();
        assertThat(podControl.patches()).singleElement().asString().contains("$deleteFromPrimitiveList/finalizers");
        assertThat(currentJob().getStatus().getSucceeded()).isEqualTo(1);
        assertThat(currentJob().getStatus().getUncountedTerminatedPods().getSucceeded()).isEmpty();

        // A stale cache that still shows the finalizer must not count the pod again.
        sync();
        assertThat(currentJob().getStatus().getSucceeded()).isEqualTo(1);
    }

    @Test
    void backsOffExponentiallyBeforeRecreatingFailedPods() {
        jobCache.put(job(1, 1, 6).build());
        sync();
        observeCreatedPods();

        finish(podCache.list().get(0), "Failed", 1);
        Optional<Duration> requeue = sync();
        applyFinalizerRemovals();
        assertThat(currentJob().getStatus().getFailed()).isEqualTo(1);
        assertThat(podControl.created()).hasSize(1);
        assertThat(requeue).contains(Duration.ofSeconds(10));

        clock.advance(Duration.ofSeconds(10));
        sync();
        assertThat(podControl.created()).hasSize(2);
        observeCreatedPods();

        clock.advance(Duration.ofSeconds(1));
        finish(newestPod(), "Failed", 1);
        assertThat(sync()).contains(Duration.ofSeconds(20));
        applyFinalizerRemovals();
        assertThat(podControl.created()).hasSize(2);
    }

    @Test
    void capsTheBackoffAtSixMinutes() {
        JobController.BackoffRecord record = new JobController.BackoffRecord(10, Optional.of(clock.instant()));
        assertThat(JobController.remainingBackoff(record, clock.instant())).contains(Duration.ofMinutes(6));
        assertThat(JobController.remainingBackoff(new JobController.BackoffRecord(3, Optional.of(clock.instant())), clock.instant()))
                .contains(Duration.ofSeconds(40));
    }

    @Test
    void failsWhenTheBackoffLimitIsExceeded() {
        jobCache.put(job(3, 2, 0).build());
        sync();
        observeCreatedPods();
        finish(podCache.list().get(0), "Failed", 1);

        sync();

        Job job = currentJob();
        assertThat(job.getStatus().getConditions()).extracting(JobCondition::getType).containsExactly("FailureTarget");
        assertThat(job.getStatus().getConditions().get(0).getReason()).isEqualTo("BackoffLimitExceeded");
        assertThat(podControl.deleted()).hasSize(1);

        // The deleted pod terminates; only then is the job Failed.
        Pod deleted = podCache.getByKey(podControl.deleted().get(0));
        finish(deleted, "Failed", 137);
        applyFinalizerRemovals();
        sync();
        applyFinalizerRemovals();
        sync();
        assertThat(currentJob().getStatus().getConditions()).extracting(JobCondition::getType).containsExactly("FailureTarget", "Failed");
        assertThat(events.events()).contains("Warning BackoffLimitExceeded Job has reached the specified backoff limit");
    }

    @Test
    void failsAfterTheActiveDeadline() {
        jobCache.put(job(1, 1, 6).editSpec().withActiveDeadlineSeconds(30L).endSpec().build());
        assertThat(sync()).contains(Duration.ofSeconds(30));
        observeCreatedPods();

        clock.advance(Duration.ofSeconds(30));
        sync();

        Job job = currentJob();
        assertThat(job.getStatus().getConditions()).extracting(JobCondition::getReason).containsExactly("DeadlineExceeded");
        assertThat(job.getStatus().getConditions().get(0).getMessage()).isEqualTo("Job was active longer than specified deadline");
        assertThat(podControl.deleted()).hasSize(1);
    }

    @Test
    void createsOnePodPerIndexWithIndexAnnotationHostnameAndEnvironment() {
        jobCache.put(job(3, 3, 6).editSpec().withCompletionMode("Indexed").endSpec().build());

        sync();

        assertThat(podControl.created()).hasSize(3);
        Pod second = podControl.created().get(1);
        assertThat(second.getMetadata().getGenerateName()).isEqualTo("pi-1-");
        assertThat(second.getMetadata().getAnnotations()).containsEntry(JobController.COMPLETION_INDEX, "1");
        assertThat(second.getMetadata().getLabels()).containsEntry(JobController.COMPLETION_INDEX, "1");
        assertThat(second.getSpec().getHostname()).isEqualTo("pi-1");
        assertThat(second.getSpec().getContainers().get(0).getEnv()).anySatisfy(variable -> {
            assertThat(variable.getName()).isEqualTo("JOB_COMPLETION_INDEX");
            assertThat(variable.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.annotations['batch.kubernetes.io/job-completion-index']");
        });

        observeCreatedPods();
        finish(podCache.list().stream().filter(pod -> JobController.completionIndex(pod) == 1).findFirst().orElseThrow(), "Succeeded", 0);
        finish(podCache.list().stream().filter(pod -> JobController.completionIndex(pod) == 2).findFirst().orElseThrow(), "Succeeded", 0);
        sync();
        applyFinalizerRemovals();
        assertThat(currentJob().getStatus().getCompletedIndexes()).isEqualTo("1-2");
        assertThat(currentJob().getStatus().getSucceeded()).isEqualTo(2);

        // Index 0 fails and is recreated after its backoff with the same index.
        finish(podCache.list().stream().filter(pod -> JobController.completionIndex(pod) == 0).findFirst().orElseThrow(), "Failed", 1);
        sync();
        applyFinalizerRemovals();
        clock.advance(Duration.ofSeconds(10));
        sync();
        assertThat(podControl.created()).hasSize(4);
        assertThat(podControl.created().get(3).getMetadata().getGenerateName()).isEqualTo("pi-0-");
    }

    @Test
    void podFailurePolicyFailsTheJobOnAMatchingExitCode() {
        jobCache.put(job(2, 1, 6).editSpec().withPodFailurePolicy(new PodFailurePolicyBuilder()
                .addNewRule().withAction("Ignore").addNewOnPodCondition().withType("DisruptionTarget").withStatus("True").endOnPodCondition().endRule()
                .addNewRule().withAction("FailJob").withNewOnExitCodes().withOperator("In").withValues(42).endOnExitCodes().endRule()
                .build()).endSpec().build());
        sync();
        observeCreatedPods();
        Pod pod = podCache.list().get(0);
        finish(pod, "Failed", 42);

        sync();

        JobCondition target = currentJob().getStatus().getConditions().get(0);
        assertThat(target.getType()).isEqualTo("FailureTarget");
        assertThat(target.getReason()).isEqualTo("PodFailurePolicy");
        assertThat(target.getMessage()).isEqualTo("Container main for pod default/" + pod.getMetadata().getName() + " failed with exit code 42 matching FailJob rule at index 1");
    }

    @Test
    void podFailurePolicyIgnoresDisruptedPods() {
        jobCache.put(job(1, 1, 0).editSpec().withPodFailurePolicy(new PodFailurePolicyBuilder()
                .addNewRule().withAction("Ignore").addNewOnPodCondition().withType("DisruptionTarget").withStatus("True").endOnPodCondition().endRule()
                .build()).endSpec().build());
        sync();
        observeCreatedPods();
        Pod pod = podCache.list().get(0);
        pod.getStatus().getConditions().add(new PodConditionBuilder().withType("DisruptionTarget").withStatus("True").build());
        finish(pod, "Failed", 137);

        sync();
        applyFinalizerRemovals();
        sync();

        assertThat(currentJob().getStatus().getFailed()).isNull();
        assertThat(currentJob().getStatus().getConditions()).isEmpty();
        assertThat(podControl.created()).hasSize(2);
    }

    @Test
    void suspendDeletesActivePodsAndResumeRestartsThem() {
        jobCache.put(job(2, 2, 6).build());
        sync();
        observeCreatedPods();

        jobCache.put(new JobBuilder(currentJob()).editSpec().withSuspend(true).endSpec().build());
        sync();
        assertThat(podControl.deleted()).hasSize(2);
        assertThat(currentJob().getStatus().getConditions()).singleElement().satisfies(condition -> {
            assertThat(condition.getType()).isEqualTo("Suspended");
            assertThat(condition.getReason()).isEqualTo("JobSuspended");
        });
        assertThat(events.events()).contains("Normal Suspended Job suspended");

        podControl.deleted().forEach(key -> {
            Pod gone = podCache.getByKey(key);
            podCache.remove(gone);
            controller.podDeleted(gone);
        });
        jobCache.put(new JobBuilder(currentJob()).editSpec().withSuspend(false).endSpec().build());
        sync();
        assertThat(podControl.created()).hasSize(4);
        assertThat(currentJob().getStatus().getConditions().get(0).getStatus()).isEqualTo("False");
        assertThat(events.events()).contains("Normal Resumed Job resumed");
    }

    @Test
    void successPolicyEndsAnIndexedJobEarly() {
        jobCache.put(job(4, 4, 6).editSpec().withCompletionMode("Indexed")
                .withNewSuccessPolicy().addNewRule().withSucceededIndexes("0").endRule().endSuccessPolicy().endSpec().build());
        sync();
        observeCreatedPods();

        finish(podCache.list().stream().filter(pod -> JobController.completionIndex(pod) == 0).findFirst().orElseThrow(), "Succeeded", 0);
        sync();

        JobCondition target = currentJob().getStatus().getConditions().get(0);
        assertThat(target.getType()).isEqualTo("SuccessCriteriaMet");
        assertThat(target.getReason()).isEqualTo("SuccessPolicy");
        assertThat(target.getMessage()).isEqualTo("Matched rules at index 0");
        // The other indexes are not needed any more.
        assertThat(podControl.deleted()).hasSize(3);
    }

    @Test
    void backoffLimitPerIndexFailsAnIndexAndThenTheJob() {
        jobCache.put(job(2, 2, Integer.MAX_VALUE).editSpec().withCompletionMode("Indexed").withBackoffLimitPerIndex(1).endSpec().build());
        sync();
        observeCreatedPods();
        assertThat(podControl.created()).allSatisfy(pod -> assertThat(pod.getMetadata().getAnnotations()).containsEntry(JobController.INDEX_FAILURE_COUNT, "0"));

        finish(indexPod(0), "Failed", 1);
        finish(indexPod(1), "Succeeded", 0);
        assertThat(sync()).contains(Duration.ofSeconds(10));
        applyFinalizerRemovals();
        assertThat(currentJob().getStatus().getFailedIndexes()).isEmpty();

        clock.advance(Duration.ofSeconds(10));
        sync();
        Pod retry = podControl.created().get(2);
        assertThat(JobController.completionIndex(retry)).isZero();
        assertThat(retry.getMetadata().getAnnotations()).containsEntry(JobController.INDEX_FAILURE_COUNT, "1");
        observeCreatedPods();

        finish(newestPod(), "Failed", 1);
        sync();

        Job job = currentJob();
        assertThat(job.getStatus().getFailedIndexes()).isEqualTo("0");
        assertThat(job.getStatus().getCompletedIndexes()).isEqualTo("1");
        // Nothing is left running, so the target and the terminal condition come in the same pass.
        assertThat(job.getStatus().getConditions()).extracting(JobCondition::getType).containsExactly("FailureTarget", "Failed");
        assertThat(job.getStatus().getConditions()).extracting(JobCondition::getReason).containsOnly("FailedIndexes");
    }

    @Test
    void releasesThePodsOfADeletedJob() {
        jobCache.put(job(2, 2, 6).build());
        sync();
        observeCreatedPods();
        podControl.clear();

        jobCache.remove(currentJob());
        sync();

        assertThat(podControl.patches()).hasSize(2).allSatisfy(patch -> assertThat(patch).contains("$deleteFromPrimitiveList/finalizers"));
    }

    private Pod indexPod(int index) {
        return podCache.list().stream().filter(pod -> JobController.completionIndex(pod) == index && "Running".equals(pod.getStatus().getPhase()))
                .findFirst().orElseThrow();
    }

    private Optional<Duration> sync() {
        return controller.syncJob(KEY);
    }

    private Job currentJob() {
        return jobCache.getByKey(KEY);
    }

    private Pod newestPod() {
        List<Pod> created = podControl.created();
        return podCache.getByKey("default/" + created.get(created.size() - 1).getMetadata().getName());
    }

    /** What the pod informer would show after the creates: each created pod, Running and Ready. */
    private void observeCreatedPods() {
        for (Pod created : podControl.created()) {
            String key = "default/" + created.getMetadata().getName();
            if (podCache.getByKey(key) == null && !podControl.deleted().contains(key)) {
                Pod pod = new PodBuilder(created).editMetadata().withCreationTimestamp(clock.instant().toString()).endMetadata()
                        .editSpec().withNodeName("node-1").endSpec()
                        .withNewStatus().withPhase("Running")
                        .addToConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build())
                        .endStatus().build();
                podCache.put(pod);
                controller.podAdded(pod);
            }
        }
    }

    private void finish(Pod pod, String phase, int exitCode) {
        Pod finished = new PodBuilder(pod).editStatus().withPhase(phase).withContainerStatuses(new ContainerStatusBuilder().withName("main")
                .withNewState().withNewTerminated().withExitCode(exitCode).withFinishedAt(clock.instant().toString()).endTerminated().endState().build())
                .endStatus().build();
        podCache.put(finished);
        controller.podUpdated(pod, finished);
    }

    /** Applies the finalizer-removal patches the controller made, as the apiserver and the pod informer would. */
    private void applyFinalizerRemovals() {
        for (String patch : podControl.patches()) {
            String key = patch.substring(0, patch.indexOf(' '));
            Pod pod = podCache.getByKey(key);
            if (pod != null && JobController.hasTrackingFinalizer(pod)) {
                Pod updated = new PodBuilder(pod).editMetadata().removeFromFinalizers(JobController.TRACKING_FINALIZER).endMetadata().build();
                podCache.put(updated);
                controller.podUpdated(pod, updated);
            }
        }
    }

    private static JobBuilder job(int completions, int parallelism, int backoffLimit) {
        Map<String, String> labels = Map.of("batch.kubernetes.io/controller-uid", "job-uid", "batch.kubernetes.io/job-name", "pi");
        return new JobBuilder()
                .withNewMetadata().withName("pi").withNamespace("default").withUid("job-uid").withResourceVersion("1").endMetadata()
                .withNewSpec()
                .withCompletions(completions).withParallelism(parallelism).withBackoffLimit(backoffLimit).withCompletionMode("NonIndexed")
                .withSuspend(false).withPodReplacementPolicy("TerminatingOrFailed")
                .withNewSelector().withMatchLabels(Map.of("batch.kubernetes.io/controller-uid", "job-uid")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(labels).endMetadata()
                .withNewSpec().withRestartPolicy("Never").addNewContainer().withName("main").withImage("perl").endContainer().endSpec()
                .endTemplate()
                .endSpec();
    }
}
