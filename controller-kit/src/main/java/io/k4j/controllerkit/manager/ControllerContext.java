package io.k4j.controllerkit.manager;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.InformerFactory;
import java.time.InstantSource;
import java.util.Map;
import java.util.function.Function;

/**
 * What a controller is built from: the shared informers (listing and watching with the controller manager's own
 * identity), an API client per controller identity, an event recorder per component name and the clock (injected so
 * tests control time).
 *
 * @param client the controller manager's own client (list/watch everything, events, leases)
 * @param controllerClients the client that writes as a controller's service account in kube-system, by service
 *     account name (e.g. {@code replicaset-controller}), so RBAC sees upstream's {@code system:controller:*} roles as
 *     with upstream's {@code --use-service-account-credentials}
 * @param settings controller-specific options by name (e.g. {@code cluster-cidr}); empty when none were given
 */
public record ControllerContext(
        KubernetesClient client,
        InformerFactory informers,
        Function<String, KubernetesClient> controllerClients,
        Function<String, EventRecorder> eventRecorders,
        InstantSource clock,
        Map<String, String> settings) {
    public ControllerContext {
        requireNonNull(client, "client is null");
        requireNonNull(informers, "informers is null");
        requireNonNull(controllerClients, "controllerClients is null");
        requireNonNull(eventRecorders, "eventRecorders is null");
        requireNonNull(clock, "clock is null");
        settings = Map.copyOf(requireNonNull(settings, "settings is null"));
    }

    /** The client that acts as the controller's service account {@code kube-system/<serviceAccount>}. */
    public KubernetesClient clientFor(String serviceAccount) {
        return controllerClients.apply(serviceAccount);
    }

    /** The recorder for events whose source is {@code component}, e.g. {@code replicaset-controller}. */
    public EventRecorder eventRecorder(String component) {
        return eventRecorders.apply(component);
    }
}
