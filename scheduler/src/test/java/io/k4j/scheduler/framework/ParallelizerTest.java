package io.k4j.scheduler.framework;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class ParallelizerTest {
    @Test
    void visitsEveryIndexOnceWithoutAStop() {
        Parallelizer parallelizer = new Parallelizer(2);
        try {
            AtomicIntegerArray visits = new AtomicIntegerArray(5000);
            parallelizer.until(5000, visits::incrementAndGet);
            for (int i = 0; i < visits.length(); i++) {
                assertThat(visits.get(i)).as("visits of %d", i).isEqualTo(1);
            }
        } finally {
            parallelizer.shutdown();
        }
    }

    @Test
    void shortLoopsVisitEveryIndexOnceWhetherThePoolThreadHelpsOrIsAbandoned() {
        Parallelizer parallelizer = new Parallelizer(2);
        try {
            // Loops of a few microseconds: the pool thread joins some of them in time and arrives after others ended.
            for (int loop = 0; loop < 2000; loop++) {
                AtomicIntegerArray visits = new AtomicIntegerArray(100);
                parallelizer.until(100, visits::incrementAndGet);
                for (int i = 0; i < visits.length(); i++) {
                    assertThat(visits.get(i)).as("visits of %d in loop %d", i, loop).isEqualTo(1);
                }
            }
        } finally {
            parallelizer.shutdown();
        }
    }

    @Test
    void stopsHandingOutIndexesOnceDoneAndSaysHowManyItHandedOut() {
        Parallelizer parallelizer = new Parallelizer(2);
        try {
            AtomicIntegerArray visits = new AtomicIntegerArray(5000);
            AtomicInteger found = new AtomicInteger();
            int handedOut = parallelizer.until(5000, index -> {
                visits.incrementAndGet(index);
                found.incrementAndGet();
            }, () -> found.get() >= 100);

            // Chunks of about sqrt(5000) = 70: the loop stops within a chunk per worker of the hundredth index.
            assertThat(handedOut).isBetween(100, 100 + 2 * 70);
            for (int i = 0; i < visits.length(); i++) {
                assertThat(visits.get(i)).as("visits of %d", i).isEqualTo(i < handedOut ? 1 : 0);
            }
        } finally {
            parallelizer.shutdown();
        }
    }

    @Test
    void aSmallLoopStopsAtTheIndexWhereItIsDone() {
        Parallelizer parallelizer = new Parallelizer(1);
        AtomicInteger calls = new AtomicInteger();
        int handedOut = parallelizer.until(1000, index -> calls.incrementAndGet(), () -> calls.get() >= 10);
        assertThat(handedOut).isEqualTo(10);
        assertThat(calls.get()).isEqualTo(10);
    }
}
