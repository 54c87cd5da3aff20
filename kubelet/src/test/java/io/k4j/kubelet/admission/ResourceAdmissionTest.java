package io.k4j.kubelet.admission;

import static io.k4j.kubelet.kuberuntime.TestPods.container;
import static io.k4j.kubelet.kuberuntime.TestPods.pod;
import static io.k4j.kubelet.kuberuntime.TestPods.withCpu;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

class ResourceAdmissionTest {
    private final Map<String, Quantity> allocatable = Map.of("cpu", new Quantity("2"), "memory", new Quantity("4Gi"),
            "pods", new Quantity("3"));

    @Test
    void admitsWhatFitsBesideTheAdmittedPods() {
        Pod first = pod("a", "Always", withCpu(container("c", "sh"), "1"));
        Pod second = pod("b", "Always", withCpu(container("c", "sh"), "1"));

        assertThat(ResourceAdmission.admit(first, List.of(), allocatable)).isEmpty();
        assertThat(ResourceAdmission.admit(second, List.of(first), allocatable)).isEmpty();
    }

    @Test
    void rejectsWhatDoesNotFitWithUpstreamsReason() {
        Pod running = pod("a", "Always", withCpu(container("c", "sh"), "500m"));
        Pod big = pod("b", "Always", withCpu(container("c", "sh"), "3"));

        assertThat(ResourceAdmission.admit(big, List.of(running), allocatable)).hasValueSatisfying(rejection -> {
            assertThat(rejection.reason()).isEqualTo("OutOfcpu");
            assertThat(rejection.message()).isEqualTo("Pod was rejected: Node didn't have enough resource: cpu, "
                    + "requested: 3000, used: 500, capacity: 2000");
        });
    }

    @Test
    void rejectsPodsBeyondThePodsCapacity() {
        List<Pod> admitted = List.of(pod("a", "Always", container("c")), pod("b", "Always", container("c")),
                pod("c", "Always", container("c")));

        assertThat(ResourceAdmission.admit(pod("d", "Always", container("c")), admitted, allocatable))
                .hasValueSatisfying(rejection -> assertThat(rejection.reason()).isEqualTo("OutOfpods"));
    }

    @Test
    void initContainersCountAsTheirLargest() {
        Pod pod = new PodBuilder(pod("a", "Always", withCpu(container("c", "sh"), "200m"))).editSpec()
                .withInitContainers(withCpu(container("i1"), "1"), withCpu(container("i2"), "300m")).endSpec().build();

        assertThat(ResourceAdmission.requests(pod)).containsEntry("cpu", 1000L);
    }
}
