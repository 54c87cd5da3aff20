package io.k4j.controllers.endpoint;

import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;

/** How the endpoints controller writes Endpoints; the API implementation writes as the controller's identity. */
interface EndpointsWriter {
    void create(Endpoints endpoints);

    /** Updates guarded by the resourceVersion the object carries (a stale cache fails with a conflict). */
    void update(Endpoints endpoints);

    /** Deletes; an object that is already gone is fine. */
    void delete(String namespace, String name);

    static EndpointsWriter api(KubernetesClient client) {
        return new EndpointsWriter() {
            @Override
            public void create(Endpoints endpoints) {
                client.endpoints().inNamespace(endpoints.getMetadata().getNamespace()).resource(endpoints).create();
            }

            @Override
            public void update(Endpoints endpoints) {
                client.endpoints().inNamespace(endpoints.getMetadata().getNamespace()).resource(endpoints).update();
            }

            @Override
            public void delete(String namespace, String name) {
                try {
                    client.endpoints().inNamespace(namespace).withName(name).delete();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                        throw e;
                    }
                }
            }
        };
    }
}
