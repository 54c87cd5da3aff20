package io.k4j.controllers.tainteviction;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TolerationsTest {
    private static final Taint UNREACHABLE = new TaintBuilder().withKey("node.kubernetes.io/unreachable").withEffect("NoExecute").build();
    private static final Taint DEDICATED = new TaintBuilder().withKey("dedicated").withValue("gpu").withEffect("NoExecute").build();

    @Test
    void untoleratedTaintEvictsAtOnce() {
        assertThat(Tolerations.evictionDelay(List.of(UNREACHABLE), List.of())).contains(Duration.ZERO);
    }

    @Test
    void shortestTolerationSecondsWins() {
        List<Toleration> tolerations = List.of(
                new TolerationBuilder().withKey("node.kubernetes.io/unreachable").withOperator("Exists").withEffect("NoExecute").withTolerationSeconds(300L).build(),
                new TolerationBuilder().withKey("dedicated").withValue("gpu").withTolerationSeconds(30L).build());

        assertThat(Tolerations.evictionDelay(List.of(UNREACHABLE, DEDICATED), tolerations)).contains(Duration.ofSeconds(30));
    }

    @Test
    void toleratingForeverMeansNoEviction() {
        Toleration everything = new TolerationBuilder().withOperator("Exists").build();

        assertThat(Tolerations.evictionDelay(List.of(UNREACHABLE, DEDICATED), List.of(everything))).isEmpty();
        assertThat(Tolerations.evictionDelay(List.of(), List.of())).isEmpty();
    }

    @Test
    void equalOperatorNeedsTheValueAndEffectMustMatch() {
        Toleration wrongValue = new TolerationBuilder().withKey("dedicated").withValue("cpu").build();
        Toleration wrongEffect = new TolerationBuilder().withKey("dedicated").withValue("gpu").withEffect("NoSchedule").build();

        assertThat(Tolerations.tolerates(wrongValue, DEDICATED)).isFalse();
        assertThat(Tolerations.tolerates(wrongEffect, DEDICATED)).isFalse();
        assertThat(Tolerations.evictionDelay(List.of(DEDICATED), List.of(wrongValue, wrongEffect))).contains(Duration.ZERO);
    }
}
