package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.k4j.controllerkit.events.ApiEventRecorder;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.InformerFactory;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.manager.ControllerManager;
import io.k4j.controllerkit.manager.ControllerSelection;
import io.k4j.controllers.KubeControllers;
import java.net.HttpURLConnection;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager inside {@code k4j server}: the controllers run only while this server holds the
 * {@code kube-controller-manager} Lease, and each writes as its own service account in kube-system.
 */
final class ControllerManagerComponent extends LeaderElectedComponent {
    private static final Logger LOG = LoggerFactory.getLogger("controller-manager");
    static final String LEASE_NAME = "kube-controller-manager";

    private final ComponentClients clients;
    private final ControllerSelection selection;
    private final Map<String, String> settings;
    private final Map<String, KubernetesClient> controllerClients = new ConcurrentHashMap<>();
    private final Map<String, ApiEventRecorder> recorders = new ConcurrentHashMap<>();
    private KubernetesClient client;
    private ControllerManager manager;

    ControllerManagerComponent(ComponentClients clients, List<String> controllers, Map<String, String> settings, String identity) {
        super(LEASE_NAME, identity);
        this.clients = requireNonNull(clients, "clients is null");
        this.selection = new ControllerSelection(controllers);
        this.settings = Map.copyOf(settings);
        // Fail start-up on a typo in --controllers, before anything runs.
        selection.validate(KubeControllers.descriptors().stream().map(descriptor -> descriptor.name()).toList());
    }

    @Override
    public String name() {
        return "controller-manager";
    }

    @Override
    KubernetesClient prepare() {
        client = clients.controllerManager();
        return client;
    }

    @Override
    void startLeading() {
        ControllerContext context = new ControllerContext(client, new InformerFactory(client), this::controllerClient, this::recorder,
                InstantSource.system(), settings);
        manager = new ControllerManager(context, KubeControllers.descriptors(), selection);
        LOG.info("starting controllers: {}", String.join(", ", manager.enabledControllers()));
        manager.start();
    }

    @Override
    void stopLeading() {
        manager.close();
        manager = null;
    }

    /** The client of a controller's service account, creating the account first as upstream's controller manager does. */
    private KubernetesClient controllerClient(String serviceAccount) {
        return controllerClients.computeIfAbsent(serviceAccount, name -> {
            try {
                client.serviceAccounts().inNamespace("kube-system")
                        .resource(new ServiceAccountBuilder().withNewMetadata().withName(name).withNamespace("kube-system").endMetadata().build())
                        .create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    LOG.warn("could not create service account kube-system/{}: {}", name, e.getMessage());
                }
            }
            return clients.controllerServiceAccount(name);
        });
    }

    private EventRecorder recorder(String component) {
        return recorders.computeIfAbsent(component, name -> new ApiEventRecorder(client, name, "", InstantSource.system()));
    }

    @Override
    void release() {
        List<ApiEventRecorder> open = new ArrayList<>(recorders.values());
        open.forEach(ApiEventRecorder::close);
        recorders.clear();
    }
}
