package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sync loop of the iptables proxier: reads the current services and endpoint slices, generates the rules and
 * writes what changed. Changes are coalesced: a sync runs at most once per {@code minSyncPeriod}, and at least once per
 * {@code syncPeriod}. A full sync (every chain rewritten, stale KUBE-SVC/SEP/EXT chains found with iptables-save and
 * deleted, jump rules ensured) runs first, after any failure and hourly, as upstream; other syncs write only the
 * chains whose rules changed and skip iptables entirely when nothing did. Thread-safe: syncs run on one thread.
 */
public final class Proxier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("kube-proxy");
    private static final Duration FULL_SYNC_PERIOD = Duration.ofHours(1);
    private static final List<String> SERVICE_CHAIN_PREFIXES = List.of("KUBE-SVC-", "KUBE-SVL-", "KUBE-SEP-", "KUBE-EXT-", "KUBE-FW-");

    private final RuleGenerator generator;
    private final IptablesExecutor executor;
    private final Supplier<List<Service>> services;
    private final Supplier<List<EndpointSlice>> endpointSlices;
    private final Duration minSyncPeriod;
    private final Duration syncPeriod;
    private final Optional<String> nodeName;
    private final boolean conntrackInstalled;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "kube-proxy-sync");
        thread.setDaemon(true);
        return thread;
    });

    // Guarded by this.
    private boolean syncPending;
    private long lastSyncNanos = System.nanoTime() - Duration.ofDays(1).toNanos();

    // Owned by the sync thread (or the caller of syncRules in tests).
    private IptablesRules applied;
    private Map<ServicePortName, ServicePortInfo> appliedServices = Map.of();
    private Map<ServicePortName, List<EndpointInfo>> appliedEndpoints = Map.of();
    private long lastFullSyncNanos;

    public Proxier(RuleGenerator generator, IptablesExecutor executor, Supplier<List<Service>> services,
            Supplier<List<EndpointSlice>> endpointSlices, Duration minSyncPeriod, Duration syncPeriod) {
        this(generator, executor, services, endpointSlices, minSyncPeriod, syncPeriod, Optional.empty());
    }

    /** @param nodeName this node's name: endpoints with it as {@code nodeName} are local (traffic policy Local) */
    public Proxier(RuleGenerator generator, IptablesExecutor executor, Supplier<List<Service>> services,
            Supplier<List<EndpointSlice>> endpointSlices, Duration minSyncPeriod, Duration syncPeriod, Optional<String> nodeName) {
        this.nodeName = requireNonNull(nodeName, "nodeName is null");
        this.generator = requireNonNull(generator, "generator is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.services = requireNonNull(services, "services is null");
        this.endpointSlices = requireNonNull(endpointSlices, "endpointSlices is null");
        this.minSyncPeriod = requireNonNull(minSyncPeriod, "minSyncPeriod is null");
        this.syncPeriod = requireNonNull(syncPeriod, "syncPeriod is null");
        this.conntrackInstalled = executor.hasConntrack();
    }

    /** Starts the loop: a full sync now, then a sync at least every syncPeriod. */
    public synchronized void start() {
        if (loop.isShutdown()) {
            return;
        }
        if (!conntrackInstalled) {
            LOG.info("conntrack is not installed: UDP flows to removed endpoints will last until their entries expire");
        }
        loop.scheduleWithFixedDelay(this::requestSync, 0, syncPeriod.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks for a sync; requests within minSyncPeriod of the last sync are coalesced into one. */
    public synchronized void requestSync() {
        if (syncPending || loop.isShutdown()) {
            return;
        }
        syncPending = true;
        long delayNanos = Math.max(0, lastSyncNanos + minSyncPeriod.toNanos() - System.nanoTime());
        loop.schedule(this::runSync, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void runSync() {
        synchronized (this) {
            syncPending = false;
            lastSyncNanos = System.nanoTime();
        }
        try {
            syncRules();
        } catch (IOException | RuntimeException e) {
            LOG.warn("syncing iptables rules failed, retrying with a full sync: {}", e.getMessage());
            synchronized (this) {
                if (!loop.isShutdown()) {
                    loop.schedule(this::requestSync, minSyncPeriod.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        }
    }

    /** One sync, full or partial; on failure the next sync is a full one. */
    public void syncRules() throws IOException {
        Map<ServicePortName, ServicePortInfo> currentServices = ServiceTracker.servicePorts(services.get());
        Map<ServicePortName, List<EndpointInfo>> currentEndpoints = EndpointsTracker.endpoints(endpointSlices.get(), nodeName);
        IptablesRules desired = generator.generate(currentServices, currentEndpoints);
        boolean full = applied == null || System.nanoTime() - lastFullSyncNanos > FULL_SYNC_PERIOD.toNanos();

        if (!full && desired.equals(applied)) {
            return;
        }
        Set<String> stale = new HashSet<>(full ? executor.chains("nat") : applied.nat().chainNames());
        stale.removeIf(chain -> SERVICE_CHAIN_PREFIXES.stream().noneMatch(chain::startsWith) || desired.nat().chains().containsKey(chain));
        IptablesRules previous = applied;
        applied = null;
        executor.restore(desired.restoreInput(full ? null : previous, stale));
        if (full) {
            executor.ensureJumpRules();
            lastFullSyncNanos = System.nanoTime();
        }
        applied = desired;
        LOG.debug("{} sync wrote {} service ports, deleted {} stale chains", full ? "full" : "partial", currentServices.size(), stale.size());

        clearStaleUdpConntrack(currentServices, currentEndpoints);
    }

    private void clearStaleUdpConntrack(Map<ServicePortName, ServicePortInfo> currentServices,
            Map<ServicePortName, List<EndpointInfo>> currentEndpoints) {
        Map<ServicePortName, List<EndpointInfo>> usableNow = new HashMap<>();
        currentEndpoints.forEach((name, endpoints) -> usableNow.put(name, RuleGenerator.usableEndpoints(endpoints)));
        if (conntrackInstalled) {
            for (Map.Entry<ServicePortName, ServicePortInfo> entry : appliedServices.entrySet()) {
                ServicePortInfo service = entry.getValue();
                if (!"UDP".equals(service.protocol())) {
                    continue;
                }
                List<EndpointInfo> kept = usableNow.getOrDefault(entry.getKey(), List.of());
                for (EndpointInfo endpoint : appliedEndpoints.getOrDefault(entry.getKey(), List.of())) {
                    if (kept.stream().noneMatch(candidate -> candidate.ip().equals(endpoint.ip()))) {
                        try {
                            executor.clearConntrack("udp", service.clusterIp(), endpoint.ip());
                        } catch (IOException e) {
                            LOG.warn("{}", e.getMessage());
                        }
                    }
                }
            }
        }
        appliedServices = Map.copyOf(currentServices);
        appliedEndpoints = Map.copyOf(usableNow);
    }

    /** Stops the loop; the rules stay in place, as upstream's kube-proxy leaves them on exit. */
    @Override
    public synchronized void close() {
        loop.shutdownNow();
    }
}
