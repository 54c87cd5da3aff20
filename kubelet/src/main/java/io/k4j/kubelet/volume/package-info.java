/**
 * Pod volumes on the node, as upstream's volume manager and volume plugins: every volume of a pod is made ready
 * under {@code <kubelet-root>/pods/<uid>/volumes/<plugin>/<name>} before its containers are created, and each
 * container gets its bind mounts (with subPath, the kubelet-managed {@code /etc/hosts} and its termination-log file).
 */
package io.k4j.kubelet.volume;
