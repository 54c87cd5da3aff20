package io.k4j.apiserver.admission.plugin.defaulttolerationseconds;

import static io.k4j.apiserver.admission.AdmissionTesting.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.admission.AdmissionTesting;
import org.junit.jupiter.api.Test;

class DefaultTolerationSecondsTest {
    private final DefaultTolerationSeconds plugin = new DefaultTolerationSeconds();

    @Test
    void addsBothTolerationsToAPodWithoutAny() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[]}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        assertThat(pod.at("/spec/tolerations").toString()).isEqualTo(
                "[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300},"
                        + "{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]");
    }

    @Test
    void keepsAnExistingTolerationForTheSameTaint() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"tolerations\":[{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":5}]}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        assertThat(pod.at("/spec/tolerations")).hasSize(2);
        assertThat(pod.at("/spec/tolerations/0/tolerationSeconds").asLong()).isEqualTo(5);
        assertThat(pod.at("/spec/tolerations/1/key").asText()).isEqualTo("node.kubernetes.io/not-ready");
    }

    @Test
    void addsNothingWhenEveryTaintIsTolerated() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"tolerations\":[{\"operator\":\"Exists\"}]}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        assertThat(pod.at("/spec/tolerations")).hasSize(1);
    }
}
