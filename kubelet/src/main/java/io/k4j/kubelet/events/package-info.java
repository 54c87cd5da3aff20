/** What the kubelet's Events refer to: the field path of a pod's container ({@link io.k4j.kubelet.events.ContainerReferences}). */
package io.k4j.kubelet.events;
