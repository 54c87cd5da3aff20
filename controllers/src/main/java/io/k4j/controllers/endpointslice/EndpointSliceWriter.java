package io.k4j.controllers.endpointslice;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;

/** How the EndpointSlice controller writes slices; the API implementation writes as the controller's identity. */
interface EndpointSliceWriter {
    /** Creates a slice (named from its {@code generateName}); returns it as stored. */
    EndpointSlice create(EndpointSlice slice);

    /** Updates guarded by the resourceVersion the slice carries; returns it as stored. */
    EndpointSlice update(EndpointSlice slice);

    /** Deletes; a slice that is already gone is fine. */
    void delete(String namespace, String name);

    static EndpointSliceWriter api(KubernetesClient client) {
        return new EndpointSliceWriter() {
            @Override
            public EndpointSlice create(EndpointSlice slice) {
                return client.discovery().v1().endpointSlices().inNamespace(slice.getMetadata().getNamespace()).resource(slice).create();
            }

            @Override
            public EndpointSlice update(EndpointSlice slice) {
                return client.discovery().v1().endpointSlices().inNamespace(slice.getMetadata().getNamespace()).resource(slice).update();
            }

            @Override
            public void delete(String namespace, String name) {
                try {
                    client.discovery().v1().endpointSlices().inNamespace(namespace).withName(name).delete();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                        throw e;
                    }
                }
            }
        };
    }
}
