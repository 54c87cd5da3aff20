package io.k4j.scheduler.framework;

import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FitErrorTest {
    private final PodInfo pod = new PodInfo(pod("p", "1", null));

    @Test
    void aggregatesFilterReasonsSortedWithCounts() {
        Diagnosis diagnosis = new Diagnosis();
        diagnosis.nodeToStatus().set("a", Status.unschedulable("Insufficient cpu"));
        diagnosis.nodeToStatus().set("b", Status.unschedulable("Insufficient cpu"));
        diagnosis.nodeToStatus().set("c", Status.unresolvable("node(s) had untolerated taint {key: value}"));

        assertThat(new FitError(pod, 3, diagnosis).message())
                .isEqualTo("0/3 nodes are available: 1 node(s) had untolerated taint {key: value}, 2 Insufficient cpu.");
    }

    @Test
    void appendsThePostFilterMessage() {
        Diagnosis diagnosis = new Diagnosis();
        diagnosis.nodeToStatus().set("a", Status.unschedulable("Insufficient cpu", "Insufficient memory"));
        diagnosis.setPostFilterMessage("preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");

        assertThat(new FitError(pod, 1, diagnosis).message()).isEqualTo("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. "
                + "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
    }

    @Test
    void preFilterRejectionReplacesTheHistogram() {
        Diagnosis diagnosis = new Diagnosis();
        diagnosis.setPreFilterMessage("node(s) didn't match Pod's node affinity/selector");
        diagnosis.nodeToStatus().setAbsentNodesStatus(Status.unresolvable("node(s) didn't match Pod's node affinity/selector"));

        assertThat(new FitError(pod, 2, diagnosis).message()).isEqualTo("0/2 nodes are available: node(s) didn't match Pod's node affinity/selector.");
    }

    @Test
    void countsNodesThatWereNeverEvaluatedWithTheAbsentStatus() {
        Diagnosis diagnosis = new Diagnosis();
        diagnosis.nodeToStatus().set("a", Status.unschedulable("Insufficient cpu"));
        diagnosis.nodeToStatus().setAbsentNodesStatus(Status.unresolvable("node(s) didn't satisfy plugin NodeAffinity"));

        assertThat(new FitError(pod, 4, diagnosis).message())
                .isEqualTo("0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin NodeAffinity.");
    }
}
