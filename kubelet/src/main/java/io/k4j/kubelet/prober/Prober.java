package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GRPCAction;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.TCPSocketAction;
import io.k4j.kubelet.env.VariableExpansion;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Runs one probe attempt against a container instance: exec (through the runtime), httpGet, tcpSocket or grpc, with
 * upstream's success rules and messages; an attempt that errors is retried up to three times, as upstream.
 * Thread-safe.
 */
final class Prober {
    private static final int MAX_RETRIES = 3;
    private static final int MAX_OUTPUT_BYTES = 10 * 1024;

    private final ContainerCommandRunner runner;
    private final HttpGetter http;
    private final GrpcHealthChecker grpc;

    Prober(ContainerCommandRunner runner, HttpGetter http, GrpcHealthChecker grpc) {
        this.runner = requireNonNull(runner, "runner is null");
        this.http = requireNonNull(http, "http is null");
        this.grpc = requireNonNull(grpc, "grpc is null");
    }

    ProbeOutcome probe(Probe probe, Container container, RunningContainer running) throws ProbeException, InterruptedException {
        ProbeException last = null;
        for (int attempt = 0; attempt < MAX_RETRIES; attempt++) {
            try {
                return probeOnce(probe, container, running);
            } catch (ProbeException e) {
                last = e;
            }
        }
        throw last;
    }

    private ProbeOutcome probeOnce(Probe probe, Container container, RunningContainer running) throws ProbeException, InterruptedException {
        Duration timeout = Duration.ofSeconds(probe.getTimeoutSeconds() == null || probe.getTimeoutSeconds() <= 0 ? 1 : probe.getTimeoutSeconds());
        String podIp = running.podIps().isEmpty() ? "" : running.podIps().get(0);
        if (probe.getExec() != null) {
            return exec(staticExpand(probe.getExec().getCommand(), container), running.containerId(), timeout);
        }
        if (probe.getHttpGet() != null) {
            HttpGetRequest request;
            try {
                request = HttpGetRequest.of(probe.getHttpGet(), container, podIp, "probe");
            } catch (IllegalArgumentException e) {
                throw new ProbeException(e.getMessage(), e);
            }
            return httpGet(request, timeout);
        }
        if (probe.getTcpSocket() != null) {
            TCPSocketAction action = probe.getTcpSocket();
            String host = action.getHost() == null || action.getHost().isEmpty() ? podIp : action.getHost();
            int port;
            try {
                port = ContainerPorts.resolve(action.getPort(), container);
            } catch (IllegalArgumentException e) {
                throw new ProbeException(e.getMessage(), e);
            }
            return tcp(host, port, timeout);
        }
        if (probe.getGrpc() != null) {
            GRPCAction action = probe.getGrpc();
            String service = action.getService() == null ? "" : action.getService();
            return grpc.check(podIp, action.getPort(), service, timeout);
        }
        throw new ProbeException("missing probe handler for " + container.getName(), null);
    }

    private ProbeOutcome exec(List<String> command, String containerId, Duration timeout) throws ProbeException {
        try {
            ExecResult result = runner.execSync(containerId, command, timeout);
            String output = truncate(result.combinedOutput());
            return result.exitCode() == 0 ? ProbeOutcome.success(output) : ProbeOutcome.failure(output);
        } catch (TimeoutException e) {
            return ProbeOutcome.failure("command \"" + String.join(" ", command) + "\" timed out");
        } catch (IOException e) {
            throw new ProbeException(e.getMessage(), e);
        }
    }

    private ProbeOutcome httpGet(HttpGetRequest request, Duration timeout) {
        HttpGetter.Response response;
        try {
            response = http.get(request.url(), request.hostHeader(), request.headers(), timeout);
        } catch (IOException e) {
            // Upstream turns transport errors into failures, so that timeouts count.
            return ProbeOutcome.failure(e.getMessage());
        }
        int status = response.statusCode();
        if (status >= 200 && status < 400) {
            if (status >= 300) {
                return ProbeOutcome.warning("Probe terminated redirects, Response body: " + response.bodyText());
            }
            return ProbeOutcome.success(response.bodyText());
        }
        return ProbeOutcome.failure("HTTP probe failed with statuscode: " + status);
    }

    private static ProbeOutcome tcp(String host, int port, Duration timeout) {
        String address = ContainerPorts.joinHostPort(host, port);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            return ProbeOutcome.success("");
        } catch (SocketTimeoutException e) {
            return ProbeOutcome.failure("dial tcp " + address + ": i/o timeout");
        } catch (ConnectException e) {
            return ProbeOutcome.failure("dial tcp " + address + ": connect: connection refused");
        } catch (NoRouteToHostException e) {
            return ProbeOutcome.failure("dial tcp " + address + ": connect: no route to host");
        } catch (IOException e) {
            return ProbeOutcome.failure("dial tcp " + address + ": " + e.getMessage());
        }
    }

    /** Upstream expands exec probe commands with the container's static env values only (no valueFrom, no services). */
    static List<String> staticExpand(List<String> command, Container container) {
        Map<String, String> values = new HashMap<>();
        for (EnvVar variable : container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()) {
            values.put(variable.getName(), variable.getValue() == null ? "" : variable.getValue());
        }
        List<String> expanded = new ArrayList<>();
        for (String argument : command == null ? List.<String>of() : command) {
            expanded.add(VariableExpansion.expand(argument, values::get));
        }
        return expanded;
    }

    private static String truncate(String output) {
        byte[] bytes = output.getBytes(StandardCharsets.UTF_8);
        return bytes.length <= MAX_OUTPUT_BYTES ? output : new String(bytes, 0, MAX_OUTPUT_BYTES, StandardCharsets.UTF_8);
    }
}
