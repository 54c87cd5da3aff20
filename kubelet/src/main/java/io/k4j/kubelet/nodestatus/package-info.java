/**
 * What every kubelet reports about its node, shared by the simulated nodes and the real kubelet: the Lease heartbeat
 * in {@code kube-node-lease}, the standard node conditions and when they are due again.
 */
package io.k4j.kubelet.nodestatus;
