/**
 * The node's CNI network configuration: the conflist containerd's CRI plugin hands to the Debian
 * {@code containernetworking-plugins} (bridge, host-local, portmap) once the node's podCIDR is known, and the node's
 * one masquerade rule for traffic leaving the pod CIDR.
 */
package io.k4j.kubelet.cni;
