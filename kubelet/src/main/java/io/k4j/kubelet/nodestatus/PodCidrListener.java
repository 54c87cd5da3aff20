package io.k4j.kubelet.nodestatus;

import java.util.List;

/**
 * Told when the node's pod CIDRs ({@code spec.podCIDRs}, assigned by the node-ipam controller) become known or
 * change, e.g. to write the node's CNI configuration. Called from the kubelet's node status thread; implementations
 * should return quickly and be idempotent (the kubelet calls again after a restart).
 */
@FunctionalInterface
public interface PodCidrListener {
    void podCidrsChanged(List<String> podCidrs);
}
