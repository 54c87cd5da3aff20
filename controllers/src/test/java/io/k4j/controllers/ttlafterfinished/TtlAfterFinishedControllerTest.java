package io.k4j.controllers.ttlafterfinished;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TtlAfterFinishedControllerTest {
    private static final String KEY = "default/pi";

    private final CacheImpl<Job> cache = new CacheImpl<>();
    /** What the apiserver holds, which may differ from the cache. */
    private Job stored;
    private final List<String> deleted = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:10Z"));
    private final TtlAfterFinishedController controller = new TtlAfterFinishedController(new Lister<>(cache), new TtlAfterFinishedController.JobClient() {
        @Override
        public Optional<Job> get(String namespace, String name) {
            return Optional.ofNullable(stored);
        }

        @Override
        public void deleteForeground(Job job) {
            deleted.add(job.getMetadata().getName());
        }
    }, clock);

    @Test
    void deletesAFinishedJobOnceItsTtlExpired() {
        put(job(100, "Complete"));

        assertThat(controller.sync(KEY)).contains(Duration.ofSeconds(90));
        assertThat(deleted).isEmpty();

        clock.advance(Duration.ofSeconds(90));
        assertThat(controller.sync(KEY)).isEmpty();
        assertThat(deleted).containsExactly("pi");
    }

    @Test
    void rereadsTheJobBeforeDeletingBecauseTheTtlMayHaveChanged() {
        put(job(0, "Failed"));
        stored = job(3600, "Failed");

        assertThat(controller.sync(KEY)).contains(Duration.ofSeconds(3590));
        assertThat(deleted).isEmpty();
    }

    @Test
    void leavesUnfinishedJobsAndJobsWithoutTtlAlone() {
        put(new JobBuilder(job(0, "Complete")).withStatus(null).build());
        assertThat(controller.sync(KEY)).isEmpty();

        put(new JobBuilder(job(0, "Complete")).editSpec().withTtlSecondsAfterFinished(null).endSpec().build());
        assertThat(controller.sync(KEY)).isEmpty();
        assertThat(deleted).isEmpty();
    }

    private void put(Job job) {
        cache.put(job);
        stored = job;
    }

    private static Job job(int ttlSeconds, String finishedCondition) {
        return new JobBuilder()
                .withNewMetadata().withName("pi").withNamespace("default").withResourceVersion("7").endMetadata()
                .withNewSpec().withTtlSecondsAfterFinished(ttlSeconds).endSpec()
                .withNewStatus().addToConditions(new JobConditionBuilder().withType(finishedCondition).withStatus("True")
                        .withLastTransitionTime("2026-01-01T00:00:00Z").build()).endStatus()
                .build();
    }
}
