package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the training run for the start-up archive does once its components run: the requests a first {@code kubectl}
 * session and a first Deployment make (discovery, OpenAPI, tables, creates, patches, server-side apply, a rollout on a
 * simulated node, a cascading namespace deletion). The classes these load go into the archive, loaded and linked, so
 * that the components and the first requests of a real start find them there. Every wait is bounded; a step that
 * does not finish in time is logged and the run goes on, because a partial archive still helps.
 */
final class TrainingWorkload {
    private static final Logger LOG = LoggerFactory.getLogger("training");
    private static final String NAMESPACE = "k4j-training";
    private static final Map<String, String> LABELS = Map.of("app", "training");
    private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

    private final KubernetesClient client;
    private final Duration stepTimeout;

    TrainingWorkload(KubernetesClient client, Duration stepTimeout) {
        this.client = requireNonNull(client, "client is null");
        this.stepTimeout = requireNonNull(stepTimeout, "stepTimeout is null");
    }

    void run() {
        long started = System.nanoTime();
        awaitStep("a simulated node turns Ready", () -> client.nodes().list().getItems().stream().anyMatch(TrainingWorkload::ready));
        for (String path : List.of("api", "apis", "openapi/v3", "openapi/v3/api/v1", "openapi/v3/apis/apps/v1", "api/v1/nodes",
                "api/v1/namespaces/kube-system/pods")) {
            getTable(path);
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        client.apps().deployments().inNamespace(NAMESPACE).resource(deployment()).create();
        client.services().inNamespace(NAMESPACE).resource(new ServiceBuilder().withNewMetadata().withName("training").endMetadata()
                .withNewSpec().withSelector(LABELS).addNewPort().withPort(80).endPort().endSpec().build()).create();
        client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName("training").endMetadata()
                .addToData("key", "value").build()).fieldManager("k4j-training").forceConflicts().serverSideApply();
        awaitStep("the Deployment's pods run", () -> available(client.apps().deployments().inNamespace(NAMESPACE).withName("training").get()) == 2);
        getTable("api/v1/namespaces/" + NAMESPACE + "/pods");
        client.apps().deployments().inNamespace(NAMESPACE).withName("training")
                .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), "{\"spec\":{\"replicas\":1}}");
        awaitStep("the Deployment scales down", () -> client.pods().inNamespace(NAMESPACE).list().getItems().size() == 1);
        client.namespaces().withName(NAMESPACE).delete();
        awaitStep("the namespace is deleted", () -> client.namespaces().withName(NAMESPACE).get() == null);
        LOG.info("training workload done in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private static Deployment deployment() {
        return new DeploymentBuilder()
                .withNewMetadata().withName("training").endMetadata()
                .withNewSpec().withReplicas(2).withNewSelector().withMatchLabels(LABELS).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(LABELS).endMetadata()
                .withNewSpec().addNewContainer().withName("main").withImage("busybox").endContainer().endSpec()
                .endTemplate().endSpec()
                .build();
    }

    private static boolean ready(Node node) {
        return node.getStatus() != null && node.getStatus().getConditions() != null && node.getStatus().getConditions().stream()
                .anyMatch(condition -> condition.getType().equals("Ready") && condition.getStatus().equals("True"));
    }

    private static int available(Deployment deployment) {
        return deployment == null || deployment.getStatus() == null || deployment.getStatus().getAvailableReplicas() == null
                ? 0 : deployment.getStatus().getAvailableReplicas();
    }

    /** A GET of a table, as {@code kubectl get} makes it, straight over the client's HTTP connection. */
    private void getTable(String path) {
        HttpClient http = client.getHttpClient();
        HttpRequest request = http.newHttpRequestBuilder().uri(client.getMasterUrl() + path).header("Accept", TABLE).build();
        try {
            http.sendAsync(request, String.class).get(stepTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.warn("GET /{} failed: {}", path, e.toString());
        }
    }

    private void awaitStep(String step, BooleanSupplier done) {
        Instant deadline = Instant.now().plus(stepTimeout);
        while (Instant.now().isBefore(deadline)) {
            if (done.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(100); // polling a condition with a deadline; nothing to be notified by
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        LOG.warn("training step not done after {} s, going on: {}", stepTimeout.toSeconds(), step);
    }
}
