package io.k4j.controllers.serviceaccount;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * kube-controller-manager's {@code serviceaccount} controller: every active namespace has a {@code default}
 * ServiceAccount, created again when deleted. Writes as the {@code service-account-controller} service account.
 * Thread-safe.
 */
public final class ServiceAccountsController implements Controller {
    public static final String NAME = "serviceaccount";
    public static final String SERVICE_ACCOUNT = "service-account-controller";
    static final List<String> ACCOUNTS = List.of("default");

    private final Lister<Namespace> namespaces;
    private final Lister<ServiceAccount> serviceAccounts;
    private final Consumer<ServiceAccount> creator;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter("serviceaccount");
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    public ServiceAccountsController(ControllerContext context) {
        this(context.informers().lister(Namespace.class), context.informers().lister(ServiceAccount.class),
                account -> context.clientFor(SERVICE_ACCOUNT).serviceAccounts().inNamespace(account.getMetadata().getNamespace()).resource(account).create());
        context.informers().informer(Namespace.class).addEventHandler(EnqueueHandlers.onAddOrUpdate(namespace -> queue.add(namespace.getMetadata().getName())));
        context.informers().informer(ServiceAccount.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ServiceAccount account) {}

            @Override
            public void onUpdate(ServiceAccount oldAccount, ServiceAccount newAccount) {}

            @Override
            public void onDelete(ServiceAccount account, boolean deletedFinalStateUnknown) {
                if (ACCOUNTS.contains(account.getMetadata().getName())) {
                    queue.add(account.getMetadata().getNamespace());
                }
            }
        });
    }

    /** @param creator creates a ServiceAccount through the API */
    ServiceAccountsController(Lister<Namespace> namespaces, Lister<ServiceAccount> serviceAccounts, Consumer<ServiceAccount> creator) {
        this.namespaces = requireNonNull(namespaces, "namespaces is null");
        this.serviceAccounts = requireNonNull(serviceAccounts, "serviceAccounts is null");
        this.creator = requireNonNull(creator, "creator is null");
    }

    WorkQueue<String> queue() {
        return queue;
    }

    void sync(String namespaceName) {
        Optional<Namespace> namespace = namespaces.get(namespaceName);
        if (namespace.isEmpty() || namespace.get().getMetadata().getDeletionTimestamp() != null
                || (namespace.get().getStatus() != null && "Terminating".equals(namespace.get().getStatus().getPhase()))) {
            return;
        }
        for (String name : ACCOUNTS) {
            if (serviceAccounts.get(namespaceName, name).isPresent()) {
                continue;
            }
            try {
                creator.accept(new ServiceAccountBuilder().withNewMetadata().withNamespace(namespaceName).withName(name).endMetadata().build());
            } catch (KubernetesClientException e) {
                // Already there (the cache lags), or the namespace began terminating meanwhile: nothing to do.
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT && e.getCode() != HttpURLConnection.HTTP_FORBIDDEN) {
                    throw e;
                }
            }
        }
    }

    @Override
    public void start(int workerCount) {
        workers.start(workerCount);
    }

    @Override
    public void close() {
        workers.close();
    }
}
