package io.k4j.apiserver.admission.plugin.resourcequota;

import static io.k4j.apiserver.admission.AdmissionTesting.ADMIN;
import static io.k4j.apiserver.admission.AdmissionTesting.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.AdmissionTesting;
import io.k4j.apiserver.admission.FakeRegistry;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import org.junit.jupiter.api.Test;

class ResourceQuotaTest {
    private static final GroupVersionResource CONFIG_MAPS = new GroupVersionResource("", "v1", "configmaps");

    private final FakeRegistry registry = new FakeRegistry()
            .with(CONFIG_MAPS, "{\"metadata\":{\"name\":\"existing\",\"namespace\":\"team\"}}")
            .with(Resources.RESOURCE_QUOTAS, "{\"metadata\":{\"name\":\"small\",\"namespace\":\"team\"},\"spec\":{\"hard\":{\"configmaps\":\"2\",\"pods\":\"1\",\"requests.cpu\":\"1\"}}}");
    private final ResourceQuota plugin = new ResourceQuota(registry);

    private AdmissionAttributes createConfigMap(String name) {
        return AdmissionTesting.create(CONFIG_MAPS, "ConfigMap", "team", json("{\"metadata\":{\"name\":\"" + name + "\"}}"), ADMIN);
    }

    @Test
    void countsExistingObjectsOnFirstUseThenChargesAndRejectsBeyondTheLimit() {
        plugin.validate(createConfigMap("second"));
        ObjectNode quota = registry.storeFor(Resources.RESOURCE_QUOTAS).get("team", "small");
        assertThat(quota.at("/status/used/configmaps").asText()).isEqualTo("2");
        assertThat(quota.at("/status/hard/pods").asText()).isEqualTo("1");

        StatusException error = catchThrowableOfType(StatusException.class, () -> plugin.validate(createConfigMap("third")));
        assertThat(error.code()).isEqualTo(403);
        assertThat(error.getMessage()).isEqualTo(
                "configmaps \"third\" is forbidden: exceeded quota: small, requested: configmaps=1, used: configmaps=2, limited: configmaps=2");
    }

    @Test
    void podsMustStateTheConstrainedResources() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"web\"}]}}");
        StatusException error = catchThrowableOfType(StatusException.class, () -> plugin.validate(AdmissionTesting.createPod("team", pod)));
        assertThat(error.getMessage()).isEqualTo("pods \"p\" is forbidden: failed quota: small: must specify requests.cpu for: web");
    }

    @Test
    void chargesComputeResourcesOfPods() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"web\",\"resources\":{\"requests\":{\"cpu\":\"600m\"}}}]}}");
        plugin.validate(AdmissionTesting.createPod("team", pod));
        ObjectNode quota = registry.storeFor(Resources.RESOURCE_QUOTAS).get("team", "small");
        assertThat(quota.at("/status/used/requests.cpu").asText()).isEqualTo("600m");
        assertThat(quota.at("/status/used/pods").asText()).isEqualTo("1");
        ObjectNode second = json("{\"metadata\":{\"name\":\"q\"},\"spec\":{\"containers\":[{\"name\":\"web\",\"resources\":{\"requests\":{\"cpu\":\"600m\"}}}]}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(AdmissionTesting.createPod("team", second))).getMessage())
                .endsWith("exceeded quota: small, requested: pods=1,requests.cpu=600m, used: pods=1,requests.cpu=600m, limited: pods=1,requests.cpu=1");
    }

    @Test
    void dryRunChecksButDoesNotCharge() {
        AdmissionAttributes dryRun = new AdmissionAttributes(Operation.CREATE, AdmissionTesting.type(CONFIG_MAPS, "ConfigMap", true), "", "team",
                "second", json("{\"metadata\":{\"name\":\"second\"}}"), null, ADMIN, true);
        plugin.validate(dryRun);
        assertThat(registry.storeFor(Resources.RESOURCE_QUOTAS).get("team", "small").path("status").isMissingNode()).isTrue();
    }

    @Test
    void scopedQuotasOnlyTrackMatchingPods() {
        registry.with(Resources.RESOURCE_QUOTAS, "{\"metadata\":{\"name\":\"best-effort\",\"namespace\":\"other\"},\"spec\":{\"hard\":{\"pods\":\"0\"},\"scopes\":[\"BestEffort\"]}}");
        ObjectNode guaranteed = json("{\"metadata\":{\"name\":\"g\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}");
        plugin.validate(AdmissionTesting.createPod("other", guaranteed));
        ObjectNode bestEffort = json("{\"metadata\":{\"name\":\"b\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(AdmissionTesting.createPod("other", bestEffort))).getMessage())
                .contains("exceeded quota: best-effort");
    }
}
