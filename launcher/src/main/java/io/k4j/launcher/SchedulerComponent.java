package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.controllerkit.events.ApiEventRecorder;
import io.k4j.scheduler.SchedulerServer;
import io.k4j.scheduler.config.KubeSchedulerConfiguration;
import io.k4j.scheduler.config.SchedulerConfigLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-scheduler inside {@code k4j server}: schedules only while this server holds the {@code kube-scheduler} Lease,
 * as {@code system:kube-scheduler}. The configuration file (if any) is read and validated when the component is
 * created, so an invalid file stops start-up with the invalid fields named.
 */
final class SchedulerComponent extends LeaderElectedComponent {
    private static final Logger LOG = LoggerFactory.getLogger("scheduler");
    static final String LEASE_NAME = "kube-scheduler";
    private static final Duration CACHE_SYNC_TIMEOUT = Duration.ofSeconds(60);
    /**
     * Upstream's scheduler writes each event on a goroutine of its own (the events.k8s.io broadcaster), so a Scheduled
     * event follows its binding closely even when hundreds of pods are bound a second; this bounds the writes at once.
     */
    private static final int EVENT_WRITES_IN_FLIGHT = 32;

    private final ComponentClients clients;
    private final KubeSchedulerConfiguration config;
    private KubernetesClient client;
    private ApiEventRecorder events;
    private SchedulerServer server;

    SchedulerComponent(ComponentClients clients, Optional<Path> configFile, String identity) {
        super(LEASE_NAME, identity);
        this.clients = requireNonNull(clients, "clients is null");
        this.config = configFile.map(SchedulerConfigLoader::load).orElseGet(SchedulerConfigLoader::defaults);
        SchedulerServer.validate(config);
    }

    @Override
    public String name() {
        return "scheduler";
    }

    @Override
    KubernetesClient prepare() {
        client = clients.scheduler();
        events = new ApiEventRecorder(client, KubeSchedulerConfiguration.DEFAULT_SCHEDULER_NAME, "", InstantSource.system(), EVENT_WRITES_IN_FLIGHT);
        return client;
    }

    @Override
    void startLeading() {
        server = new SchedulerServer(client, config, events, InstantSource.system());
        try {
            server.start(CACHE_SYNC_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("scheduler start interrupted");
        }
    }

    @Override
    void stopLeading() {
        server.close();
        server = null;
    }

    @Override
    void release() {
        if (events != null) {
            events.close();
        }
    }
}
