package io.k4j.controllers.history;

import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.controllerkit.patch.NamedPatch;
import java.util.Optional;

/**
 * Where ControllerRevisions are written: the API in production, a map in unit tests. Implementations are thread-safe
 * and throw {@code KubernetesClientException} as the apiserver answers (409 when a created name exists).
 */
public interface RevisionStore {
    ControllerRevision create(ControllerRevision revision);

    Optional<ControllerRevision> get(String namespace, String name);

    ControllerRevision update(ControllerRevision revision);

    void delete(String namespace, String name);

    void patch(String namespace, String name, String strategicMergePatch);

    /** The store that writes through {@code client}. */
    static RevisionStore api(KubernetesClient client) {
        return new RevisionStore() {
            @Override
            public ControllerRevision create(ControllerRevision revision) {
                return client.apps().controllerRevisions().inNamespace(revision.getMetadata().getNamespace()).resource(revision).create();
            }

            @Override
            public Optional<ControllerRevision> get(String namespace, String name) {
                return Optional.ofNullable(client.apps().controllerRevisions().inNamespace(namespace).withName(name).get());
            }

            @Override
            public ControllerRevision update(ControllerRevision revision) {
                return client.apps().controllerRevisions().inNamespace(revision.getMetadata().getNamespace()).resource(revision).update();
            }

            @Override
            public void delete(String namespace, String name) {
                client.apps().controllerRevisions().inNamespace(namespace).withName(name).delete();
            }

            @Override
            public void patch(String namespace, String name, String strategicMergePatch) {
                NamedPatch.strategicMerge(client.apps().controllerRevisions(), ControllerRevision::new, namespace, name, strategicMergePatch);
            }
        };
    }
}
