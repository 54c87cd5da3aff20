package io.k4j.apiserver.admission.plugin.serviceaccount;

import static io.k4j.apiserver.admission.AdmissionTesting.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.admission.AdmissionTesting;
import io.k4j.apiserver.admission.FakeRegistry;
import io.k4j.apiserver.admission.Resources;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ServiceAccountTest {
    private final FakeRegistry registry = new FakeRegistry()
            .with(Resources.SERVICE_ACCOUNTS, "{\"metadata\":{\"name\":\"default\",\"namespace\":\"default\"},\"imagePullSecrets\":[{\"name\":\"registry\"}]}")
            .with(Resources.SERVICE_ACCOUNTS, "{\"metadata\":{\"name\":\"quiet\",\"namespace\":\"default\"},\"automountServiceAccountToken\":false}");
    private final ServiceAccount plugin = new ServiceAccount(registry, new SplittableRandom(1));

    @Test
    void defaultsTheServiceAccountAndMountsAProjectedToken() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c1\"},{\"name\":\"c2\",\"volumeMounts\":[{\"name\":\"data\",\"mountPath\":\"/data\"}]}]}}");
        plugin.admit(AdmissionTesting.createPod("default", pod));
        plugin.validate(AdmissionTesting.createPod("default", pod));

        assertThat(pod.at("/spec/serviceAccountName").asText()).isEqualTo("default");
        String volumeName = pod.at("/spec/volumes/0/name").asText();
        assertThat(volumeName).matches("kube-api-access-[a-z0-9]{5}");
        assertThat(pod.at("/spec/volumes/0/projected/sources/0/serviceAccountToken/expirationSeconds").asLong()).isEqualTo(3607);
        assertThat(pod.at("/spec/volumes/0/projected/sources/1/configMap/name").asText()).isEqualTo("kube-root-ca.crt");
        assertThat(pod.at("/spec/volumes/0/projected/sources/2/downwardAPI/items/0/fieldRef/fieldPath").asText()).isEqualTo("metadata.namespace");
        for (int container = 0; container < 2; container++) {
            ObjectNode mount = (ObjectNode) pod.at("/spec/containers/" + container + "/volumeMounts").get(container == 0 ? 0 : 1);
            assertThat(mount.path("name").asText()).isEqualTo(volumeName);
            assertThat(mount.path("mountPath").asText()).isEqualTo("/var/run/secrets/kubernetes.io/serviceaccount");
            assertThat(mount.path("readOnly").asBoolean()).isTrue();
        }
        assertThat(pod.at("/spec/imagePullSecrets/0/name").asText()).isEqualTo("registry");
    }

    @Test
    void respectsAutomountSwitchedOffOnTheServiceAccountOrPod() {
        ObjectNode quiet = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"serviceAccountName\":\"quiet\",\"containers\":[{\"name\":\"c\"}]}}");
        plugin.admit(AdmissionTesting.createPod("default", quiet));
        assertThat(quiet.at("/spec/volumes").isMissingNode()).isTrue();

        ObjectNode optedOut = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"automountServiceAccountToken\":false,\"containers\":[{\"name\":\"c\"}]}}");
        plugin.admit(AdmissionTesting.createPod("default", optedOut));
        assertThat(optedOut.at("/spec/volumes").isMissingNode()).isTrue();
    }

    @Test
    void rejectsAMissingServiceAccount() {
        ObjectNode pod = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"serviceAccountName\":\"ghost\",\"containers\":[{\"name\":\"c\"}]}}");
        StatusException error = catchThrowableOfType(StatusException.class, () -> plugin.admit(AdmissionTesting.createPod("default", pod)));
        assertThat(error.code()).isEqualTo(403);
        assertThat(error.getMessage()).isEqualTo("pods \"p\" is forbidden: error looking up service account default/ghost: serviceaccount \"ghost\" not found");
    }

    @Test
    void leavesMirrorPodsAloneButRejectsTheirSecrets() {
        ObjectNode mirror = json("{\"metadata\":{\"name\":\"p\",\"annotations\":{\"kubernetes.io/config.mirror\":\"x\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"volumes\":[{\"name\":\"s\",\"secret\":{\"secretName\":\"s\"}}]}}");
        plugin.admit(AdmissionTesting.createPod("default", mirror));
        assertThat(mirror.at("/spec/serviceAccountName").isMissingNode()).isTrue();
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(AdmissionTesting.createPod("default", mirror))).code()).isEqualTo(403);
    }
}
