package io.k4j.controllers.rootcacertpublisher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.informers.EnqueueHandlers;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.WorkQueue;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's {@code root-ca-certificate-publisher}: every namespace has a {@code kube-root-ca.crt}
 * ConfigMap whose {@code ca.crt} is the cluster CA, so pods can verify the apiserver; edits and deletes are undone.
 * The CA comes from the {@code root-ca-pem} setting. Writes as the {@code root-ca-cert-publisher} service account.
 * Thread-safe.
 */
public final class RootCaCertPublisher implements Controller {
    private static final Logger LOG = LoggerFactory.getLogger("root-ca-cert-publisher");
    public static final String NAME = "root-ca-certificate-publisher";
    public static final String SERVICE_ACCOUNT = "root-ca-cert-publisher";
    /** The setting that carries the cluster CA certificate in PEM. */
    public static final String ROOT_CA_SETTING = "root-ca-pem";
    static final String CONFIG_MAP_NAME = "kube-root-ca.crt";
    static final String DATA_KEY = "ca.crt";
    static final String DESCRIPTION_ANNOTATION = "kubernetes.io/description";
    static final String DESCRIPTION = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
            + "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

    /** The writes the publisher makes. */
    interface ConfigMapWriter {
        void create(ConfigMap configMap);

        void update(ConfigMap configMap);
    }

    private final Lister<Namespace> namespaces;
    private final Lister<ConfigMap> configMaps;
    private final ConfigMapWriter writer;
    private final String rootCa;
    private final WorkQueue<String> queue = WorkQueue.withDefaultRateLimiter("root_ca_cert_publisher");
    private final QueueWorkers<String> workers = new QueueWorkers<>(queue, this::sync);

    public RootCaCertPublisher(ControllerContext context) {
        this(context.informers().lister(Namespace.class), context.informers().lister(ConfigMap.class), apiWriter(context.clientFor(SERVICE_ACCOUNT)),
                context.settings().getOrDefault(ROOT_CA_SETTING, ""));
        if (rootCa.isEmpty()) {
            LOG.warn("no {} setting: kube-root-ca.crt ConfigMaps are not published", ROOT_CA_SETTING);
            return;
        }
        context.informers().informer(Namespace.class).addEventHandler(EnqueueHandlers.onAddOrUpdate(namespace -> queue.add(namespace.getMetadata().getName())));
        context.informers().informer(ConfigMap.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap configMap) {}

            @Override
            public void onUpdate(ConfigMap oldConfigMap, ConfigMap newConfigMap) {
                enqueueIfOurs(newConfigMap);
            }

            @Override
            public void onDelete(ConfigMap configMap, boolean deletedFinalStateUnknown) {
                enqueueIfOurs(configMap);
            }
        });
    }

    RootCaCertPublisher(Lister<Namespace> namespaces, Lister<ConfigMap> configMaps, ConfigMapWriter writer, String rootCa) {
        this.namespaces = requireNonNull(namespaces, "namespaces is null");
        this.configMaps = requireNonNull(configMaps, "configMaps is null");
        this.writer = requireNonNull(writer, "writer is null");
        this.rootCa = requireNonNull(rootCa, "rootCa is null");
    }

    private static ConfigMapWriter apiWriter(KubernetesClient client) {
        return new ConfigMapWriter() {
            @Override
            public void create(ConfigMap configMap) {
                client.configMaps().inNamespace(configMap.getMetadata().getNamespace()).resource(configMap).create();
            }

            @Override
            public void update(ConfigMap configMap) {
                client.configMaps().inNamespace(configMap.getMetadata().getNamespace()).resource(configMap).update();
            }
        };
    }

    private void enqueueIfOurs(ConfigMap configMap) {
        if (CONFIG_MAP_NAME.equals(configMap.getMetadata().getName())) {
            queue.add(configMap.getMetadata().getNamespace());
        }
    }

    WorkQueue<String> queue() {
        return queue;
    }

    void sync(String namespaceName) {
        Optional<Namespace> namespace = namespaces.get(namespaceName);
        if (namespace.isEmpty() || namespace.get().getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        Map<String, String> data = Map.of(DATA_KEY, rootCa);
        Optional<ConfigMap> existing = configMaps.get(namespaceName, CONFIG_MAP_NAME);
        try {
            if (existing.isEmpty()) {
                writer.create(new ConfigMapBuilder().withNewMetadata().withNamespace(namespaceName).withName(CONFIG_MAP_NAME)
                        .addToAnnotations(DESCRIPTION_ANNOTATION, DESCRIPTION).endMetadata().withData(data).build());
                return;
            }
            ConfigMap current = existing.get();
            Map<String, String> annotations = current.getMetadata().getAnnotations() == null ? Map.of() : current.getMetadata().getAnnotations();
            if (Objects.equals(current.getData(), data) && DESCRIPTION.equals(annotations.get(DESCRIPTION_ANNOTATION))) {
                return;
            }
            writer.update(new ConfigMapBuilder(current).withData(data).withBinaryData(null)
                    .editMetadata().addToAnnotations(DESCRIPTION_ANNOTATION, DESCRIPTION).endMetadata().build());
        } catch (KubernetesClientException e) {
            // Terminating namespace (403) or a cache behind the API (409): the next event brings us back.
            if (e.getCode() != HttpURLConnection.HTTP_FORBIDDEN && e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT && existing.isPresent()) {
                throw e;
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
