package io.k4j.controllers.endpointutil;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;

/**
 * How the endpoints and EndpointSlice controllers write the objects they own; the API implementation writes through
 * a client made for the controller's identity. Implementations are thread-safe.
 */
public interface ObjectWriter<T extends HasMetadata> {
    /** Creates the object (named from its {@code generateName} when it has no name); returns it as stored. */
    T create(T object);

    /** Updates guarded by the resourceVersion the object carries (a stale cache fails with a conflict); returns it as stored. */
    T update(T object);

    /** Deletes; an object that is already gone is fine. */
    void delete(String namespace, String name);

    /** Writes through {@code resources}, for example {@code client.endpoints()}. */
    static <T extends HasMetadata> ObjectWriter<T> api(MixedOperation<T, ?, ? extends Resource<T>> resources) {
        return new ObjectWriter<>() {
            @Override
            public T create(T object) {
                return resources.inNamespace(object.getMetadata().getNamespace()).resource(object).create();
            }

            @Override
            public T update(T object) {
                return resources.inNamespace(object.getMetadata().getNamespace()).resource(object).update();
            }

            @Override
            public void delete(String namespace, String name) {
                try {
                    resources.inNamespace(namespace).withName(name).delete();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                        throw e;
                    }
                }
            }
        };
    }
}
