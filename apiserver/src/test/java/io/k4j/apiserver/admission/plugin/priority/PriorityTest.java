package io.k4j.apiserver.admission.plugin.priority;

import static io.k4j.apiserver.admission.AdmissionTesting.ADMIN;
import static io.k4j.apiserver.admission.AdmissionTesting.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.admission.AdmissionTesting;
import io.k4j.apiserver.admission.FakeRegistry;
import io.k4j.apiserver.admission.Resources;
import org.junit.jupiter.api.Test;

class PriorityTest {
    private final FakeRegistry registry = new FakeRegistry()
            .with(Resources.PRIORITY_CLASSES, "{\"metadata\":{\"name\":\"high\"},\"value\":1000}")
            .with(Resources.PRIORITY_CLASSES, "{\"metadata\":{\"name\":\"polite\"},\"value\":500,\"preemptionPolicy\":\"Never\"}");
    private final Priority plugin = new Priority(registry);

    @Test
    void resolvesTheClassIntoPriorityAndPolicy() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priorityClassName\":\"polite\"}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        assertThat(pod.at("/spec/priority").asLong()).isEqualTo(500);
        assertThat(pod.at("/spec/preemptionPolicy").asText()).isEqualTo("Never");
    }

    @Test
    void withoutAClassOrDefaultThePriorityIsZero() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        assertThat(pod.at("/spec/priority").asLong()).isZero();
        assertThat(pod.at("/spec/preemptionPolicy").asText()).isEqualTo("PreemptLowerPriority");
        assertThat(pod.at("/spec/priorityClassName").isMissingNode()).isTrue();
    }

    @Test
    void theGlobalDefaultAppliesToPodsWithoutAClass() {
        registry.with(Resources.PRIORITY_CLASSES, "{\"metadata\":{\"name\":\"everyday\"},\"value\":10,\"globalDefault\":true}");
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        assertThat(pod.at("/spec/priorityClassName").asText()).isEqualTo("everyday");
        assertThat(pod.at("/spec/priority").asLong()).isEqualTo(10);
    }

    @Test
    void rejectsUnknownClassesAndMismatchingPriorities() {
        ObjectNode unknown = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priorityClassName\":\"nope\"}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.admit(AdmissionTesting.createPod("default", unknown))).getMessage())
                .isEqualTo("pods \"p\" is forbidden: no PriorityClass with name nope was found");
        ObjectNode mismatch = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"priorityClassName\":\"high\",\"priority\":7}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.admit(AdmissionTesting.createPod("default", mismatch))).getMessage())
                .isEqualTo("pods \"p\" is forbidden: the integer value of priority (7) must not be provided in pod spec; "
                        + "priority admission controller computed 1000 from the given PriorityClass name");
    }

    @Test
    void allowsOnlyOneGlobalDefault() {
        registry.with(Resources.PRIORITY_CLASSES, "{\"metadata\":{\"name\":\"everyday\"},\"value\":10,\"globalDefault\":true}");
        ObjectNode second = json("{\"metadata\":{\"name\":\"another\"},\"value\":20,\"globalDefault\":true}");
        StatusException error = catchThrowableOfType(StatusException.class,
                () -> plugin.validate(AdmissionTesting.create(Resources.PRIORITY_CLASSES, "PriorityClass", "", second, ADMIN)));
        assertThat(error.getMessage()).endsWith("PriorityClass everyday is already marked as default. Only one default can exist");
    }
}
