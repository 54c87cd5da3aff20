package io.k4j.scheduler.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;

/** Hand-built nodes and pods for scheduler tests. */
public final class TestObjects {
    private TestObjects() {}

    public static Node node(String name, String cpu, String memory) {
        return node(name, cpu, memory, Map.of());
    }

    public static Node node(String name, String cpu, String memory, Map<String, String> labels) {
        return new NodeBuilder()
                .withNewMetadata().withName(name).addToLabels("kubernetes.io/hostname", name).addToLabels(labels).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus()
                .addToAllocatable("cpu", new Quantity(cpu)).addToAllocatable("memory", new Quantity(memory)).addToAllocatable("pods", new Quantity("110"))
                .endStatus()
                .build();
    }

    public static Node withTaints(Node node, Taint... taints) {
        return new NodeBuilder(node).editSpec().withTaints(List.of(taints)).endSpec().build();
    }

    public static Pod pod(String name, String cpu, String memory) {
        PodBuilder builder = new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("default").withUid("uid-" + name).withCreationTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .withNewSpec().addNewContainer().withName("main").withImage("busybox").withNewResources().endResources().endContainer().endSpec();
        Pod pod = builder.build();
        if (cpu != null) {
            pod.getSpec().getContainers().get(0).getResources().getRequests().put("cpu", new Quantity(cpu));
        }
        if (memory != null) {
            pod.getSpec().getContainers().get(0).getResources().getRequests().put("memory", new Quantity(memory));
        }
        return pod;
    }

    public static Pod withLabels(Pod pod, Map<String, String> labels) {
        return new PodBuilder(pod).editMetadata().addToLabels(labels).endMetadata().build();
    }

    public static Pod withPriority(Pod pod, int priority) {
        return new PodBuilder(pod).editSpec().withPriority(priority).endSpec().build();
    }

    public static Pod onNode(Pod pod, String nodeName) {
        return new PodBuilder(pod).editSpec().withNodeName(nodeName).endSpec().build();
    }
}
