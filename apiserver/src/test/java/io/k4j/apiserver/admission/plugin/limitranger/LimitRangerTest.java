package io.k4j.apiserver.admission.plugin.limitranger;

import static io.k4j.apiserver.admission.AdmissionTesting.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.admission.AdmissionTesting;
import io.k4j.apiserver.admission.FakeRegistry;
import io.k4j.apiserver.admission.Resources;
import org.junit.jupiter.api.Test;

class LimitRangerTest {
    private final FakeRegistry registry = new FakeRegistry().with(Resources.LIMIT_RANGES, """
            {"metadata":{"name":"limits","namespace":"default"},"spec":{"limits":[
              {"type":"Container","default":{"cpu":"500m"},"defaultRequest":{"cpu":"100m"},"min":{"cpu":"50m"},"max":{"cpu":"1"},
               "maxLimitRequestRatio":{"cpu":"5"}},
              {"type":"Pod","max":{"memory":"1Gi"}}]}}""");
    private final LimitRanger plugin = new LimitRanger(registry);

    @Test
    void fillsMissingRequestsAndLimitsAndSaysSo() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"web\",\"resources\":{\"limits\":{\"memory\":\"64Mi\"}}}]}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        assertThat(pod.at("/spec/containers/0/resources/limits/cpu").asText()).isEqualTo("500m");
        assertThat(pod.at("/spec/containers/0/resources/requests/cpu").asText()).isEqualTo("100m");
        assertThat(pod.at("/metadata/annotations/kubernetes.io~1limit-ranger").asText())
                .isEqualTo("LimitRanger plugin set: cpu limit for container web; cpu request for container web");
        assertThatCode(() -> plugin.validate(AdmissionTesting.createPod("default", pod))).doesNotThrowAnyException();
    }

    @Test
    void rejectsEveryViolationInOneMessage() {
        ObjectNode pod = json("""
                {"metadata":{"name":"p"},"spec":{"containers":[{"name":"web","resources":{
                  "requests":{"cpu":"10m","memory":"512Mi"},"limits":{"cpu":"2","memory":"600Mi"}}},
                  {"name":"side","resources":{"requests":{"cpu":"100m","memory":"512Mi"},"limits":{"cpu":"200m","memory":"600Mi"}}}]}}""");
        StatusException error = catchThrowableOfType(StatusException.class, () -> plugin.validate(AdmissionTesting.createPod("default", pod)));
        assertThat(error.code()).isEqualTo(403);
        assertThat(error.getMessage()).isEqualTo("pods \"p\" is forbidden: ["
                + "minimum cpu usage per Container is 50m, but request is 10m, "
                + "maximum cpu usage per Container is 1, but limit is 2, "
                + "cpu max limit to request ratio per Container is 5, but provided ratio is 200.000000, "
                + "maximum memory usage per Pod is 1Gi, but limit is 1200Mi]");
    }

    @Test
    void checksClaimsAgainstTheirRequest() {
        registry.with(Resources.LIMIT_RANGES, "{\"metadata\":{\"name\":\"storage\",\"namespace\":\"default\"},\"spec\":{\"limits\":[{\"type\":\"PersistentVolumeClaim\",\"min\":{\"storage\":\"1Gi\"},\"max\":{\"storage\":\"5Gi\"}}]}}");
        ObjectNode claim = json("{\"metadata\":{\"name\":\"c\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"10Gi\"}}}}");
        StatusException error = catchThrowableOfType(StatusException.class, () -> plugin.validate(AdmissionTesting.create(
                new io.k4j.api.resource.GroupVersionResource("", "v1", "persistentvolumeclaims"), "PersistentVolumeClaim", "default", claim, AdmissionTesting.ADMIN)));
        assertThat(error.getMessage()).isEqualTo("persistentvolumeclaims \"c\" is forbidden: maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi");
    }
}
