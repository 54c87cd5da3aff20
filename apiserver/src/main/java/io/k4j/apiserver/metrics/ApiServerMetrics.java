package io.k4j.apiserver.metrics;

import io.k4j.apiserver.endpoints.LongRunningListener;
import io.k4j.apiserver.endpoints.RequestInfo;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The apiserver's Prometheus metrics with upstream's names and labels: {@code apiserver_request_total},
 * {@code apiserver_request_duration_seconds}, {@code etcd_request_duration_seconds},
 * {@code apiserver_registered_watchers} and {@code apiserver_longrunning_requests}. Each instance has its own
 * registry, so several servers can run in one JVM. Thread-safe.
 */
public final class ApiServerMetrics implements LongRunningListener {
    private static final double[] REQUEST_BUCKETS = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60};
    private static final double[] STORAGE_BUCKETS = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter requests;
    private final Histogram requestDuration;
    private final Histogram storageDuration;
    private final Gauge longRunning;

    /** A watcher count per group, version and kind. */
    public record WatcherCount(String group, String version, String kind, int count) {}

    public ApiServerMetrics(Supplier<List<WatcherCount>> watchers) {
        requests = Counter.builder()
                .name("apiserver_request_total")
                .help("Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.")
                .labelNames("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code")
                .register(registry);
        requestDuration = Histogram.builder()
                .name("apiserver_request_duration_seconds")
                .help("Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.")
                .labelNames("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component")
                .classicOnly()
                .classicUpperBounds(REQUEST_BUCKETS)
                .register(registry);
        storageDuration = Histogram.builder()
                .name("etcd_request_duration_seconds")
                .help("Etcd request latency in seconds for each operation and object type.")
                .labelNames("operation", "type")
                .classicOnly()
                .classicUpperBounds(STORAGE_BUCKETS)
                .register(registry);
        longRunning = Gauge.builder()
                .name("apiserver_longrunning_requests")
                .help("Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.")
                .labelNames("verb", "group", "version", "resource", "subresource", "scope", "component")
                .register(registry);
        GaugeWithCallback.builder()
                .name("apiserver_registered_watchers")
                .help("Number of currently registered watchers for a given resources")
                .labelNames("group", "version", "kind")
                .callback(callback -> {
                    for (WatcherCount count : watchers.get()) {
                        callback.call(count.count(), count.group(), count.version(), count.kind());
                    }
                })
                .register(registry);
    }

    /** Records one finished request. */
    public void observeRequest(RequestInfo info, boolean dryRun, int code, long nanos) {
        String verb = reportedVerb(info);
        requests.labelValues(verb, dryRun ? "All" : "", info.apiGroup(), info.apiVersion(), info.resource(), info.subresource(), scope(info), "apiserver", Integer.toString(code)).inc();
        requestDuration.labelValues(verb, dryRun ? "All" : "", info.apiGroup(), info.apiVersion(), info.resource(), info.subresource(), scope(info), "apiserver")
                .observe(nanos / 1e9);
    }

    /** Records one storage call: {@code operation} as upstream ({@code get}, {@code list}, {@code create} …), {@code type} the resource. */
    public void observeStorage(String operation, String type, long nanos) {
        storageDuration.labelValues(operation, type).observe(nanos / 1e9);
    }

    @Override
    public void started(RequestInfo info) {
        longRunning.labelValues(reportedVerb(info), info.apiGroup(), info.apiVersion(), info.resource(), info.subresource(), scope(info), "apiserver").inc();
    }

    @Override
    public void ended(RequestInfo info) {
        longRunning.labelValues(reportedVerb(info), info.apiGroup(), info.apiVersion(), info.resource(), info.subresource(), scope(info), "apiserver").dec();
    }

    /** The metrics in Prometheus text format. */
    public byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            PrometheusTextFormatWriter.create().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }

    /** Upstream reports verbs in upper case, with LIST/WATCH told apart from GET. */
    private static String reportedVerb(RequestInfo info) {
        if (!info.resourceRequest()) {
            return info.verb().toUpperCase(Locale.ROOT);
        }
        return switch (info.verb()) {
            case "get" -> "GET";
            case "list" -> "LIST";
            case "watch" -> "WATCH";
            case "create" -> "POST";
            case "update" -> "PUT";
            case "patch" -> "PATCH";
            case "delete", "deletecollection" -> "DELETE";
            default -> info.verb().toUpperCase(Locale.ROOT);
        };
    }

    private static String scope(RequestInfo info) {
        return info.resourceRequest() ? info.scope() : "";
    }
}
