/**
 * Container probes as upstream's prober: liveness, readiness and startup probes (exec, HTTP GET, TCP socket, gRPC),
 * one worker per container and probe kind, with upstream's timing, thresholds and events.
 */
package io.k4j.kubelet.prober;
