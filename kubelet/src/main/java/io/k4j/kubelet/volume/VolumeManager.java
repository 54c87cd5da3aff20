package io.k4j.kubelet.volume;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.util.Set;

/**
 * Makes a pod's volumes ready on the host and removes them again, as upstream's kubelet volume manager with its
 * in-tree plugins (emptyDir, hostPath, configMap, secret, downwardAPI, projected).
 *
 * <p>The pod worker calls {@link #mount} on every sync of a pod that should run, before it creates the sandbox's
 * containers and again on each periodic resync: the call is idempotent and also refreshes the content of
 * configMap, secret, downwardAPI and projected volumes (atomically, by swapping the {@code ..data} symlink) and
 * rotates projected service-account tokens past 80% of their lifetime — so later changes reach running containers
 * as upstream's do. Implementations are thread-safe; calls for different pods may run concurrently, calls for one
 * pod are serialised by the pod worker.
 */
public interface VolumeManager {
    /**
     * Makes every volume of {@code pod} ready on the host.
     *
     * @return the pod's volumes, for the container mounts
     * @throws VolumeMountException when a volume cannot be set up yet (e.g. its ConfigMap does not exist); the pod
     *     stays ContainerCreating, the worker records the exception's event and retries the sync later
     */
    PodVolumes mount(Pod pod) throws VolumeMountException;

    /**
     * Tears down every volume of the pod (unmounting tmpfs emptyDirs) and deletes the pod's directory under the
     * kubelet root, once its containers are gone. Doing it for a pod with nothing on disk is not an error.
     *
     * @throws IOException when something could not be removed (retry later)
     */
    void unmount(String podUid) throws IOException;

    /** The UIDs of pods that have a directory under the kubelet root, for cleaning up orphans after a restart. */
    Set<String> podsOnDisk() throws IOException;
}
