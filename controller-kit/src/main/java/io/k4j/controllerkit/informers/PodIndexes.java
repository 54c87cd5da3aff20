package io.k4j.controllerkit.informers;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Map;

/** Indexes on the shared pod informer that several controllers need, registered once however many ask. */
public final class PodIndexes {
    /** Pods by {@code spec.nodeName}; unscheduled pods are not indexed. */
    public static final String NODE_NAME = "spec.nodeName";

    private PodIndexes() {}

    /** The pods bound to a node, from the shared pod informer's cache. */
    public static Lister<Pod> byNodeName(InformerFactory informers) {
        SharedIndexInformer<Pod> informer = informers.informer(Pod.class);
        synchronized (informer) {
            if (!informer.getIndexer().getIndexers().containsKey(NODE_NAME)) {
                informer.addIndexers(Map.of(NODE_NAME, pod -> pod.getSpec() == null || pod.getSpec().getNodeName() == null
                        || pod.getSpec().getNodeName().isEmpty() ? List.of() : List.of(pod.getSpec().getNodeName())));
            }
        }
        return informers.lister(Pod.class);
    }
}
