/**
 * The kubelet's client for the Container Runtime Interface: {@link io.k4j.kubelet.cri.RuntimeService} and
 * {@link io.k4j.kubelet.cri.ImageService} in Java terms over the generated {@code runtime.v1} messages
 * ({@code io.k4j.kubelet.cri.v1}), implemented over gRPC on the runtime's unix socket by
 * {@link io.k4j.kubelet.cri.CriConnection}. Every call has a deadline; a failed call throws
 * {@link io.k4j.kubelet.cri.CriException}, whose message reads like upstream's ({@code rpc error: code = … desc = …}).
 * A hand-written fake for unit tests is in this module's test-jar ({@code io.k4j.kubelet.cri.testing}).
 */
package io.k4j.kubelet.cri;
