package io.k4j.kubelet.lifecycle;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.events.ContainerReferences;
import io.k4j.kubelet.prober.ContainerCommandRunner;
import io.k4j.kubelet.prober.ExecResult;
import io.k4j.kubelet.prober.HttpGetRequest;
import io.k4j.kubelet.prober.HttpGetter;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's {@link HookRunner}, as upstream's handler runner: exec hooks run without a timeout of their own (a
 * preStop hook is bounded by the grace period), httpGet hooks fail only when no response arrives (any status code
 * is fine, and an HTTPS hook answered in plain HTTP is retried over HTTP with a {@code LifecycleHTTPFallback}
 * event), sleep hooks sleep. Thread-safe.
 */
public final class KubeletHookRunner implements HookRunner {
    private static final Logger log = LoggerFactory.getLogger(KubeletHookRunner.class);
    /** No single hook HTTP request waits longer than this; upstream's client has no timeout but its hooks are bounded. */
    private static final Duration HTTP_TIMEOUT = Duration.ofMinutes(2);

    private final ContainerCommandRunner runner;
    private final EventRecorder events;
    private final HttpGetter http;

    public KubeletHookRunner(ContainerCommandRunner runner, EventRecorder events) {
        this.runner = requireNonNull(runner, "runner is null");
        this.events = requireNonNull(events, "events is null");
        this.http = new HttpGetter();
    }

    @Override
    public Optional<String> runPostStart(Pod pod, Container container, String containerId, List<String> podIps) {
        LifecycleHandler handler = container.getLifecycle() == null ? null : container.getLifecycle().getPostStart();
        if (handler == null) {
            return Optional.empty();
        }
        Optional<String> failure;
        try {
            failure = run(pod, container, containerId, podIps, handler, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = Optional.of("PostStartHook interrupted");
        }
        if (failure.isPresent()) {
            log.info("PostStartHook of container {} in pod {} failed: {}", container.getName(), podName(pod), failure.get());
            // Upstream keeps the hook's message out of the event, so that secrets in it do not leak.
            events.event(pod, ContainerReferences.fieldPath(pod, container.getName()), EventRecorder.WARNING,
                    "FailedPostStartHook", "PostStartHook failed");
        }
        return failure;
    }

    @Override
    public Duration runPreStop(Pod pod, Container container, String containerId, List<String> podIps, Duration gracePeriod) {
        LifecycleHandler handler = container.getLifecycle() == null ? null : container.getLifecycle().getPreStop();
        if (handler == null) {
            return Duration.ZERO;
        }
        Instant start = Instant.now();
        CompletableFuture<Optional<String>> hook = new CompletableFuture<>();
        Thread runner = Thread.ofVirtual().name("prestop-" + container.getName()).start(() -> {
            try {
                hook.complete(run(pod, container, containerId, podIps, handler, gracePeriod));
            } catch (InterruptedException e) {
                hook.complete(Optional.of("container terminated before the hook finished"));
            } catch (RuntimeException e) {
                hook.completeExceptionally(e);
            }
        });
        try {
            Optional<String> failure = hook.get(Math.max(0, gracePeriod.toMillis()), TimeUnit.MILLISECONDS);
            if (failure.isPresent()) {
                log.info("PreStopHook of container {} in pod {} failed: {}", container.getName(), podName(pod), failure.get());
                events.event(pod, ContainerReferences.fieldPath(pod, container.getName()), EventRecorder.WARNING,
                        "FailedPreStopHook", "PreStopHook failed");
            }
        } catch (TimeoutException e) {
            log.info("PreStopHook of container {} in pod {} did not complete within the grace period {}", container.getName(), podName(pod),
                    gracePeriod);
            // The container is stopped next anyway; a sleeping or waiting hook need not outlive the grace period.
            runner.interrupt();
        } catch (ExecutionException e) {
            log.warn("PreStopHook of container {} in pod {} failed", container.getName(), podName(pod), e.getCause());
            events.event(pod, ContainerReferences.fieldPath(pod, container.getName()), EventRecorder.WARNING,
                    "FailedPreStopHook", "PreStopHook failed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            runner.interrupt();
        }
        Duration elapsed = Duration.between(start, Instant.now());
        return elapsed.compareTo(gracePeriod) > 0 ? gracePeriod : elapsed;
    }

    /** Runs a handler; returns upstream's failure message, or empty on success. */
    private Optional<String> run(Pod pod, Container container, String containerId, List<String> podIps, LifecycleHandler handler,
            Duration limit) throws InterruptedException {
        if (handler.getExec() != null) {
            List<String> command = handler.getExec().getCommand() == null ? List.of() : handler.getExec().getCommand();
            String error;
            String output = "";
            try {
                ExecResult result = runner.execSync(containerId, command, limit);
                if (result.exitCode() == 0) {
                    return Optional.empty();
                }
                output = result.combinedOutput();
                error = "command '" + String.join(" ", command) + "' exited with " + result.exitCode() + ": "
                        + new String(result.stderr(), StandardCharsets.UTF_8);
            } catch (TimeoutException e) {
                error = "command \"" + String.join(" ", command) + "\" timed out";
            } catch (IOException e) {
                error = e.getMessage();
            }
            return Optional.of("Exec lifecycle hook ([" + String.join(" ", command) + "]) for Container \"" + container.getName()
                    + "\" in Pod \"" + podName(pod) + "\" failed - error: " + error + ", message: " + goQuote(output));
        }
        if (handler.getHttpGet() != null) {
            String path = handler.getHttpGet().getPath() == null ? "" : handler.getHttpGet().getPath();
            try {
                httpGet(pod, container, podIps, handler);
                return Optional.empty();
            } catch (IOException | IllegalArgumentException e) {
                return Optional.of("HTTP lifecycle hook (" + path + ") for Container \"" + container.getName() + "\" in Pod \""
                        + podName(pod) + "\" failed - error: " + e.getMessage());
            }
        }
        if (handler.getSleep() != null) {
            long seconds = handler.getSleep().getSeconds() == null ? 0 : handler.getSleep().getSeconds();
            Thread.sleep(Duration.ofSeconds(seconds));
            return Optional.empty();
        }
        return Optional.of("Cannot run handler: invalid handler: " + handler);
    }

    private void httpGet(Pod pod, Container container, List<String> podIps, LifecycleHandler handler) throws IOException {
        String host = handler.getHttpGet().getHost();
        if ((host == null || host.isEmpty()) && podIps.isEmpty()) {
            throw new IOException("failed to find networking container");
        }
        HttpGetRequest request = HttpGetRequest.of(handler.getHttpGet(), container, podIps.isEmpty() ? "" : podIps.get(0), "lifecycle");
        try {
            http.get(request.url(), request.hostHeader(), request.headers(), HTTP_TIMEOUT);
        } catch (IOException e) {
            if (!"https".equals(request.url().getScheme()) || !isPlainHttpAnswer(e)) {
                throw e;
            }
            URI plain = URI.create("http" + request.url().toString().substring("https".length()));
            List<java.util.Map.Entry<String, String>> headers = request.headers().stream()
                    .filter(header -> !header.getKey().equals("Authorization"))
                    .toList();
            http.get(plain, request.hostHeader(), headers, HTTP_TIMEOUT);
            events.event(pod, EventRecorder.WARNING, "LifecycleHTTPFallback",
                    "request to HTTPS lifecycle hook " + plain.getRawAuthority() + " got HTTP response, retry with HTTP succeeded");
        }
    }

    /** Whether a TLS handshake failed because the server answered in plain HTTP. */
    private static boolean isPlainHttpAnswer(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof javax.net.ssl.SSLException && cause.getMessage() != null
                    && (cause.getMessage().contains("plaintext") || cause.getMessage().contains("Unsupported or unrecognized SSL message"))) {
                return true;
            }
        }
        return false;
    }

    /** Upstream's {@code format.Pod}: {@code name_namespace(uid)}. */
    private static String podName(Pod pod) {
        return pod.getMetadata().getName() + "_" + pod.getMetadata().getNamespace() + "(" + pod.getMetadata().getUid() + ")";
    }

    private static String goQuote(String value) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char character : value.toCharArray()) {
            switch (character) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (character < 0x20) {
                        quoted.append(String.format("\\x%02x", (int) character));
                    } else {
                        quoted.append(character);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
