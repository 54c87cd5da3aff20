/**
 * The kubelet's HTTPS server (port 10250): container logs read from the CRI log files, exec, attach and port-forward
 * relayed to the container runtime's streaming server, the kubelet's pods and health, each request authenticated (client
 * certificate from the cluster CA, or a bearer token through a TokenReview) and authorized (a SubjectAccessReview on
 * {@code nodes/<subresource>}) by the apiserver, as upstream's kubelet with webhook authentication and authorization.
 *
 * <p>What the server needs from the rest of the kubelet is two small interfaces: {@link io.k4j.kubelet.server.PodContainerLocator}
 * (pods, container log files, sandbox ids) and {@link io.k4j.kubelet.server.StreamingRuntime} (CRI Exec, Attach and
 * PortForward, which return the runtime's streaming URLs).
 */
package io.k4j.kubelet.server;
