package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.controllerkit.events.ApiEventRecorder;
import io.k4j.controllerkit.leaderelection.LeaderElection;
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
final class SchedulerComponent implements Component {
    private static final Logger LOG = LoggerFactory.getLogger("scheduler");
    static final String LEASE_NAME = "kube-scheduler";
    private static final Duration CACHE_SYNC_TIMEOUT = Duration.ofSeconds(60);

    private final ComponentClients clients;
    private final KubeSchedulerConfiguration config;
    private final String identity;
    private KubernetesClient client;
    private ApiEventRecorder events;
    private LeaderElection election;
    private SchedulerServer server;

    SchedulerComponent(ComponentClients clients, Optional<Path> configFile, String identity) {
        this.clients = requireNonNull(clients, "clients is null");
        this.identity = requireNonNull(identity, "identity is null");
        this.config = configFile.map(SchedulerConfigLoader::load).orElseGet(SchedulerConfigLoader::defaults);
        SchedulerServer.validate(config);
    }

    @Override
    public String name() {
        return "scheduler";
    }

    @Override
    public synchronized void start() {
        client = clients.scheduler();
        events = new ApiEventRecorder(client, KubeSchedulerConfiguration.DEFAULT_SCHEDULER_NAME, "", InstantSource.system());
        election = LeaderElection.start(client, LEASE_NAME, identity, this::startScheduling, this::stopScheduling);
    }

    private synchronized void startScheduling() {
        if (server != null) {
            return;
        }
        server = new SchedulerServer(client, config, events, InstantSource.system());
        try {
            server.start(CACHE_SYNC_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("scheduler start interrupted");
        }
    }

    private synchronized void stopScheduling() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    @Override
    public synchronized void close() {
        if (election != null) {
            election.close();
        }
        stopScheduling();
        if (events != null) {
            events.close();
        }
    }
}
