/** Kubelet admission: a pod bound to the node is rejected (phase Failed) when it does not fit what the node has. */
package io.k4j.kubelet.admission;
