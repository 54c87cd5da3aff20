package io.k4j.e2e;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Stands in for a kubelet in tests that run without nodes: every pod that appears in a namespace is reported Running
 * and Ready through the pods/status subresource, as a kubelet would once its containers started. Thread-safe.
 */
final class FakeKubelet implements AutoCloseable {
    private final KubernetesClient client;
    private final SharedIndexInformer<Pod> informer;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("fake-kubelet").factory());

    FakeKubelet(KubernetesClient client, String namespace) {
        this.client = requireNonNull(client, "client is null");
        this.informer = client.pods().inNamespace(namespace).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                submit(pod);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                submit(newPod);
            }

            @Override
            public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                // nothing runs, nothing to stop
            }
        });
    }

    private void submit(Pod pod) {
        if (isReady(pod) || pod.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        writer.submit(() -> markReady(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
    }

    private void markReady(String namespace, String name) {
        for (int attempt = 0; attempt < 5; attempt++) {
            Pod current = client.pods().inNamespace(namespace).withName(name).get();
            if (current == null || isReady(current) || current.getMetadata().getDeletionTimestamp() != null) {
                return;
            }
            String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
            current.setStatus(new PodStatusBuilder()
                    .withPhase("Running")
                    .withPodIP("10.42.0.10")
                    .withStartTime(now)
                    .withConditions(
                            condition("PodScheduled", now),
                            condition("Initialized", now),
                            condition("ContainersReady", now),
                            condition("Ready", now))
                    .withContainerStatuses(current.getSpec().getContainers().stream()
                            .map(container -> new ContainerStatusBuilder()
                                    .withName(container.getName())
                                    .withImage(container.getImage())
                                    .withReady(true)
                                    .withStarted(true)
                                    .withRestartCount(0)
                                    .withNewState().withNewRunning().withStartedAt(now).endRunning().endState()
                                    .build())
                            .toList())
                    .build());
            try {
                client.pods().inNamespace(namespace).resource(current).updateStatus();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    return;
                }
            }
        }
    }

    private static io.fabric8.kubernetes.api.model.PodCondition condition(String type, String now) {
        return new PodConditionBuilder().withType(type).withStatus("True").withLastTransitionTime(now).build();
    }

    private static boolean isReady(Pod pod) {
        List<io.fabric8.kubernetes.api.model.PodCondition> conditions = pod.getStatus() == null ? null : pod.getStatus().getConditions();
        return conditions != null && conditions.stream().anyMatch(condition -> "Ready".equals(condition.getType()) && "True".equals(condition.getStatus()));
    }

    @Override
    public void close() {
        informer.stop();
        writer.shutdownNow();
    }
}
