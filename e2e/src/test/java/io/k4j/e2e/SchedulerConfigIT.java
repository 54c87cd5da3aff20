package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code k4j server --scheduler-config}: several profiles schedule the pods that name them, pods naming no profile are
 * left alone, and an invalid file stops start-up with a message naming the field.
 */
class SchedulerConfigIT {
    @TempDir
    Path temporaryDirectory;

    @Test
    void profilesScheduleTheirPodsAndOthersAreLeftAlone() throws IOException {
        Path config = temporaryDirectory.resolve("scheduler.yaml");
        Files.writeString(config, """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                profiles:
                - schedulerName: default-scheduler
                - schedulerName: bin-packing
                  pluginConfig:
                  - name: NodeResourcesFit
                    args:
                      scoringStrategy:
                        type: MostAllocated
                """);
        try (K4jServer server = K4jServer.start(temporaryDirectory.resolve("data"), SchedulerIT.NODES_WITHOUT_AGENT, "--scheduler-config", config.toString());
                KubernetesClient client = server.client()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("only").endMetadata()
                    .withNewStatus().addToAllocatable("cpu", new Quantity("4")).addToAllocatable("memory", new Quantity("8Gi"))
                    .addToAllocatable("pods", new Quantity("110")).endStatus().build()).create();
            client.pods().inNamespace("default").resource(pod("packed", "bin-packing")).create();
            client.pods().inNamespace("default").resource(pod("ignored", "nobody")).create();

            await().atMost(Duration.ofSeconds(60)).until(() -> "only".equals(client.pods().inNamespace("default").withName("packed").get().getSpec().getNodeName()));
            Pod ignored = client.pods().inNamespace("default").withName("ignored").get();
            assertThat(ignored.getSpec().getNodeName()).isNull();
            assertThat(ignored.getStatus().getConditions()).isEmpty();
            assertThat(client.v1().events().inNamespace("default").list().getItems())
                    .noneMatch(event -> event.getInvolvedObject().getName().equals("ignored"));
        }
    }

    @Test
    void invalidConfigurationStopsStartUpNamingTheField() throws Exception {
        Path config = temporaryDirectory.resolve("invalid.yaml");
        Files.writeString(config, """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                profiles:
                - schedulerName: default-scheduler
                  plugins:
                    filter:
                      enabled:
                      - name: NoSuchPlugin
                """);
        Path launcher = LauncherCommand.directory();
        Path log = temporaryDirectory.resolve("server.log");
        List<String> command = LauncherCommand.jvm(launcher, "1g");
        command.addAll(LauncherCommand.main(launcher, "server"));
        command.addAll(List.of("--data-dir", temporaryDirectory.resolve("invalid-data").toString(), "--bind-address", "127.0.0.1",
                "--secure-port", Integer.toString(freeLoopbackPort()), "--scheduler-config", config.toString()));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("server exits").isTrue();
            assertThat(process.exitValue()).isNotZero();
            assertThat(Files.readString(log)).contains("profiles[0].plugins.filter.enabled[0].name: Invalid value: \"NoSuchPlugin\": plugin does not exist");
        } finally {
            process.destroyForcibly();
        }
    }

    private static Pod pod(String name, String schedulerName) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withSchedulerName(schedulerName).addNewContainer().withName("main").withImage("busybox")
                .withNewResources().addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec()
                .build();
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
