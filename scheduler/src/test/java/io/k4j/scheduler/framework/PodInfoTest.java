package io.k4j.scheduler.framework;

import static io.k4j.scheduler.testing.TestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodInfoTest {
    @Test
    void requestsTakeTheLargerOfContainersAndInitContainersPlusOverhead() {
        Pod pod = pod("p", "500m", "100Mi");
        pod.getSpec().getInitContainers().add(new ContainerBuilder().withName("init").withNewResources()
                .addToRequests("cpu", new Quantity("2")).endResources().build());
        pod.getSpec().setOverhead(Map.of("cpu", new Quantity("100m")));

        Resource requests = new PodInfo(pod).requests();

        assertThat(requests.milliCpu).isEqualTo(2100);
        assertThat(requests.memory).isEqualTo(100L * 1024 * 1024);
    }

    @Test
    void sidecarsAddToContainersAndToLaterInitContainers() {
        Pod pod = pod("p", "1", null);
        pod.getSpec().getInitContainers().add(new ContainerBuilder().withName("sidecar").withRestartPolicy("Always").withNewResources()
                .addToRequests("cpu", new Quantity("500m")).endResources().build());
        pod.getSpec().getInitContainers().add(new ContainerBuilder().withName("init").withNewResources()
                .addToRequests("cpu", new Quantity("1200m")).endResources().build());

        assertThat(new PodInfo(pod).requests().milliCpu).isEqualTo(1700);
    }

    @Test
    void nonZeroRequestsUseTheSchedulerDefaultsForMissingRequests() {
        PodInfo pod = new PodInfo(pod("p", null, null));

        assertThat(pod.requests().milliCpu).isZero();
        assertThat(pod.nonZeroRequests().milliCpu).isEqualTo(PodInfo.DEFAULT_MILLI_CPU_REQUEST);
        assertThat(pod.nonZeroRequests().memory).isEqualTo(PodInfo.DEFAULT_MEMORY_REQUEST);
    }
}
