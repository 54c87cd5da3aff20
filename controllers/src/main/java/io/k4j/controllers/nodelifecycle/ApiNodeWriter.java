package io.k4j.controllers.nodelifecycle;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** {@link NodeWriter} through the API, with upstream's get-and-update retries on conflicts. Thread-safe. */
final class ApiNodeWriter implements NodeWriter {
    private static final int CONFLICT_RETRIES = 5;

    private final KubernetesClient client;

    ApiNodeWriter(KubernetesClient client) {
        this.client = requireNonNull(client, "client is null");
    }

    @Override
    public void updateConditions(Node node, List<NodeCondition> conditions) {
        Node changed = new NodeBuilder(node).editOrNewStatus().withConditions(new ArrayList<>(conditions)).endStatus().build();
        client.nodes().resource(changed).updateStatus();
    }

    @Override
    public void updateTaints(String nodeName, UnaryOperator<List<Taint>> change) {
        for (int attempt = 0; ; attempt++) {
            Node latest = client.nodes().withName(nodeName).get();
            if (latest == null) {
                return;
            }
            List<Taint> before = NodeTaints.taints(latest);
            List<Taint> after = change.apply(new ArrayList<>(before));
            if (after.equals(before)) {
                return;
            }
            Node changed = new NodeBuilder(latest).editOrNewSpec().withTaints(after).endSpec().build();
            try {
                client.nodes().resource(changed).update();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= CONFLICT_RETRIES) {
                    throw e;
                }
            }
        }
    }

    @Override
    public void markPodNotReady(Pod pod, String now) {
        Pod changed = new PodBuilder(pod).build();
        List<PodCondition> conditions = changed.getStatus().getConditions();
        boolean changedAny = false;
        for (PodCondition condition : conditions) {
            if ("Ready".equals(condition.getType()) && !"False".equals(condition.getStatus())) {
                condition.setStatus("False");
                condition.setLastTransitionTime(now);
                changedAny = true;
            }
        }
        if (!changedAny) {
            return;
        }
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(changed).updateStatus();
        } catch (KubernetesClientException e) {
            // Gone, or changed since the cache saw it: the next health pass looks again.
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND && e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
        }
    }
}
