package io.k4j.kubelet.nodestatus;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.testing.FakeRuntimeService;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RuntimeHealthTest {
    private final FakeRuntimeService runtime = new FakeRuntimeService(new MutableClock(Instant.parse("2026-01-01T00:00:00Z")));

    @Test
    void aRuntimeThatAnswersWithItsConditionsTrueIsReady() {
        assertThat(RuntimeHealth.check(runtime)).isEqualTo(RuntimeHealth.READY);
    }

    @Test
    void aRuntimeThatDoesNotAnswerIsDownInUpstreamsWords() {
        runtime.failNext("Status", new CriException(CriException.Code.UNAVAILABLE,
                "connection error: desc = \"transport: Error while dialing: dial unix containerd.sock: connect: no such file or directory\""));

        assertThat(RuntimeHealth.check(runtime)).isEqualTo(new RuntimeHealth(false, "container runtime is down"));
        assertThat(RuntimeHealth.check(runtime).ready()).isTrue();
    }

    @Test
    void aRuntimeWithoutItsNetworkIsNotReadyWithTheConditionsReasonAndMessage() {
        runtime.setNetworkReady(false);

        assertThat(RuntimeHealth.check(runtime)).isEqualTo(new RuntimeHealth(false, "container runtime network not ready: "
                + "NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"));
    }
}
