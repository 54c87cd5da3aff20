package io.k4j.controllers.namespace;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Namespace;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllers.dynamic.DynamicClient;
import java.time.InstantSource;
import java.util.Optional;

/**
 * kube-controller-manager's {@code namespace} controller: a namespace with a deletion timestamp is emptied by the
 * {@link NamespacedResourcesDeleter}, pass after pass, until it can be finalized. Writes as the
 * {@code namespace-controller} service account. Thread-safe.
 */
public final class NamespaceController implements Controller {
    public static final String NAME = "namespace";
    public static final String SERVICE_ACCOUNT = "namespace-controller";

    private final Lister<Namespace> namespaces;
    private final NamespacedResourcesDeleter deleter;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter("namespace");
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    public NamespaceController(ControllerContext context) {
        this(context.informers().lister(Namespace.class),
                new ApiNamespaceClient(new DynamicClient(context.clientFor(SERVICE_ACCOUNT))), context.clock());
        context.informers().informer(Namespace.class).addEventHandler(EnqueueHandlers.onAddOrUpdate(this::enqueue));
    }

    NamespaceController(Lister<Namespace> namespaces, NamespaceClient client, InstantSource clock) {
        this.namespaces = requireNonNull(namespaces, "namespaces is null");
        this.deleter = new NamespacedResourcesDeleter(client, clock);
    }

    void enqueue(Namespace namespace) {
        if (namespace.getMetadata().getDeletionTimestamp() != null) {
            queue.add(namespace.getMetadata().getName());
        }
    }

    WorkQueue<String> queue() {
        return queue;
    }

    /** One pass over the namespace {@code name}; requeues itself while content is still terminating. */
    void sync(String name) {
        Optional<Namespace> namespace = namespaces.get(name);
        if (namespace.isEmpty()) {
            return;
        }
        deleter.delete(namespace.get()).ifPresent(wait -> queue.addAfter(name, wait));
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
