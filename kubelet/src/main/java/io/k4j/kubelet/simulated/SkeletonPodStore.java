package io.k4j.kubelet.simulated;

import static io.k4j.controllerkit.informers.EmptyCollections.shareEmptyCollections;
import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The pod informer's cache, keeping only what identifies a pod (namespace, name, uid, resourceVersion, node name):
 * the simulator acts on the full objects its event handler receives and never reads pods back from the cache, so
 * a cluster of 150,000 pods does not hold them twice in one JVM (the apiserver's watch cache already does). The
 * skeletons share empty lists and maps for the fields they leave empty: a new model object starts each with one of
 * its own, about twenty for a pod, its metadata and spec.
 * Thread-safe.
 */
final class SkeletonPodStore implements ItemStore<Pod> {
    private final ConcurrentHashMap<String, Pod> pods = new ConcurrentHashMap<>();
    private final Consumer<Pod> beforeCaching;

    /** @param beforeCaching sees each whole pod as it is cached, before it is cut to its skeleton */
    SkeletonPodStore(Consumer<Pod> beforeCaching) {
        this.beforeCaching = requireNonNull(beforeCaching, "beforeCaching is null");
    }

    static String key(Pod pod) {
        ObjectMeta metadata = pod.getMetadata();
        String namespace = metadata.getNamespace();
        return namespace == null || namespace.isEmpty() ? metadata.getName() : namespace + "/" + metadata.getName();
    }

    @Override
    public String getKey(Pod pod) {
        return key(pod);
    }

    @Override
    public Pod put(String key, Pod pod) {
        beforeCaching.accept(pod);
        return pods.put(key, skeleton(pod));
    }

    @Override
    public Pod remove(String key) {
        return pods.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return pods.keySet().stream();
    }

    @Override
    public Stream<Pod> values() {
        return pods.values().stream();
    }

    @Override
    public int size() {
        return pods.size();
    }

    @Override
    public Pod get(String key) {
        return pods.get(key);
    }

    /**
     * Not the pods' whole state. fabric8 otherwise holds back the add notifications of an informer's first list until
     * the list is complete and then sends the cached objects, here skeletons: after a restart every running pod reached
     * the simulator without its status, was taken for a pod still to start, and had its status written again.
     */
    @Override
    public boolean isFullState() {
        return false;
    }

    static Pod skeleton(Pod pod) {
        ObjectMeta metadata = new ObjectMeta();
        metadata.setNamespace(pod.getMetadata().getNamespace());
        metadata.setName(pod.getMetadata().getName());
        metadata.setUid(pod.getMetadata().getUid());
        metadata.setResourceVersion(pod.getMetadata().getResourceVersion());
        Pod skeleton = new Pod();
        skeleton.setMetadata(shareEmptyCollections(metadata));
        if (pod.getSpec() != null) {
            PodSpec spec = new PodSpec();
            spec.setNodeName(pod.getSpec().getNodeName());
            skeleton.setSpec(shareEmptyCollections(spec));
        }
        return shareEmptyCollections(skeleton);
    }
}
