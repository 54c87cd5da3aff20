package io.k4j.kubelet.volume;

import io.fabric8.kubernetes.api.model.Container;
import io.k4j.kubelet.env.CreateContainerConfigException;
import io.k4j.kubelet.env.EnvironmentVariable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A pod's volumes as they are on the host, and the mounts each container gets from them. Immutable and
 * thread-safe, though {@link #mountsFor} creates subPath directories, the etc-hosts file and the termination-log
 * file on disk.
 */
public interface PodVolumes {
    String podUid();

    /** Each volume's directory (or file, for a hostPath file) on the host, by volume name. */
    Map<String, Path> volumePaths();

    /**
     * The bind mounts of one container (init, regular or ephemeral), in the order the runtime should apply them:
     * its volumeMounts (subPath honoured; subPathExpr expanded with the container's environment, as upstream),
     * then the kubelet-managed {@code /etc/hosts} (unless the pod uses the host network without host aliases
     * handling or the container mounts {@code /etc/hosts} itself; written with the pod's IPs, hostname, subdomain
     * FQDN and hostAliases as upstream), then a fresh termination-log file mounted at the container's
     * terminationMessagePath (one per container instance, under {@code pods/<uid>/containers/<name>/}).
     *
     * @param environment the container's resolved environment, for subPathExpr
     * @param podIps the sandbox's IPs (empty when the network is not set up, which omits {@code /etc/hosts}, as
     *     upstream)
     * @throws CreateContainerConfigException when a subPath cannot be prepared (the container's waiting reason is
     *     then CreateContainerConfigError, as upstream)
     */
    List<ContainerMount> mountsFor(Container container, List<EnvironmentVariable> environment, List<String> podIps)
            throws CreateContainerConfigException;
}
