package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
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
 * writes what changed. Changes are coalesced: syncs run at most once per {@code minSyncPeriod} on average (with a burst
 * of two after a quiet time, as upstream), and at least once per {@code syncPeriod}. Only the rules of service ports
 * whose service or endpoints changed are generated again ({@link IncrementalGenerator}). A full sync (every chain
 * rewritten, stale KUBE-SVC/SEP/EXT chains found with iptables-save and deleted, jump rules ensured) runs first, after
 * any failure and hourly, as upstream; other syncs write only the chains whose rules changed and skip iptables entirely
 * when nothing did. Thread-safe: syncs run on one thread.
 *
 * <p>Each sync reports its {@link SyncResult} in a debug line ({@code -v 2}), with upstream's network programming
 * latency of every endpoint change it put in place: the time from a slice's
 * {@code endpoints.kubernetes.io/last-change-trigger-time} (new since the previous sync, and later than this proxier's
 * start, as upstream counts them) to the end of the sync that applied it. Benchmarks read these lines.
 */
public final class Proxier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("kube-proxy");
    private static final Duration FULL_SYNC_PERIOD = Duration.ofHours(1);
    /** Syncs that may run back to back after a quiet time, as upstream's {@code burstSyncs}. */
    private static final int BURST_SYNCS = 2;
    private static final List<String> SERVICE_CHAIN_PREFIXES = List.of("KUBE-SVC-", "KUBE-SVL-", "KUBE-SEP-", "KUBE-EXT-", "KUBE-FW-");
    /** Set by the endpoint slice controller (and by whoever writes slices by hand) to the time of the change. */
    public static final String LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";

    private final IncrementalGenerator generator;
    private final IptablesExecutor executor;
    private final Supplier<List<Service>> services;
    private final Supplier<List<EndpointSlice>> endpointSlices;
    private final Duration minSyncPeriod;
    private final Duration syncPeriod;
    private final Optional<String> nodeName;
    private final boolean conntrackInstalled;
    private final InstantSource clock;
    private final Instant started;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "kube-proxy-sync");
        thread.setDaemon(true);
        return thread;
    });

    // Guarded by this.
    private boolean syncPending;
    private final SyncRateLimiter rateLimiter;

    // Owned by the sync thread (or the caller of syncRules in tests).
    private IptablesRules applied;
    /** Each service port's rules as of the last sync that wrote or found them in place, for the UDP conntrack clean-up. */
    private Map<ServicePortName, ServicePortRules> appliedRules = Map.of();
    private long lastFullSyncNanos;
    /** The trigger time of each slice ({@code namespace/name}) as of the last sync that put its rules in place. */
    private Map<String, Instant> appliedTriggerTimes = Map.of();

    public Proxier(RuleGenerator generator, IptablesExecutor executor, Supplier<List<Service>> services,
            Supplier<List<EndpointSlice>> endpointSlices, Duration minSyncPeriod, Duration syncPeriod) {
        this(generator, executor, services, endpointSlices, minSyncPeriod, syncPeriod, InstantSource.system(), Optional.empty());
    }

    /** @param nodeName this node's name: endpoints with it as {@code nodeName} are local (traffic policy Local) */
    public Proxier(RuleGenerator generator, IptablesExecutor executor, Supplier<List<Service>> services,
            Supplier<List<EndpointSlice>> endpointSlices, Duration minSyncPeriod, Duration syncPeriod, Optional<String> nodeName) {
        this(generator, executor, services, endpointSlices, minSyncPeriod, syncPeriod, InstantSource.system(), nodeName);
    }

    Proxier(RuleGenerator generator, IptablesExecutor executor, Supplier<List<Service>> services,
            Supplier<List<EndpointSlice>> endpointSlices, Duration minSyncPeriod, Duration syncPeriod, InstantSource clock) {
        this(generator, executor, services, endpointSlices, minSyncPeriod, syncPeriod, clock, Optional.empty());
    }

    Proxier(RuleGenerator generator, IptablesExecutor executor, Supplier<List<Service>> services,
            Supplier<List<EndpointSlice>> endpointSlices, Duration minSyncPeriod, Duration syncPeriod, InstantSource clock,
            Optional<String> nodeName) {
        this.nodeName = requireNonNull(nodeName, "nodeName is null");
        this.generator = new IncrementalGenerator(requireNonNull(generator, "generator is null"));
        this.executor = requireNonNull(executor, "executor is null");
        this.services = requireNonNull(services, "services is null");
        this.endpointSlices = requireNonNull(endpointSlices, "endpointSlices is null");
        this.minSyncPeriod = requireNonNull(minSyncPeriod, "minSyncPeriod is null");
        this.syncPeriod = requireNonNull(syncPeriod, "syncPeriod is null");
        this.rateLimiter = new SyncRateLimiter(minSyncPeriod, BURST_SYNCS, System.nanoTime());
        this.conntrackInstalled = executor.hasConntrack();
        this.clock = requireNonNull(clock, "clock is null");
        this.started = clock.instant();
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

    /**
     * Asks for a sync: at once when the rate limiter allows one, else as soon as it does; requests made while one is
     * pending are coalesced into it.
     */
    public synchronized void requestSync() {
        if (syncPending || loop.isShutdown()) {
            return;
        }
        syncPending = true;
        loop.schedule(this::runSync, rateLimiter.delayNanos(System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void runSync() {
        synchronized (this) {
            syncPending = false;
            rateLimiter.take(System.nanoTime());
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
    public SyncResult syncRules() throws IOException {
        long start = System.nanoTime();
        List<EndpointSlice> slices = endpointSlices.get();
        Map<String, Instant> triggerTimes = triggerTimes(slices);
        Map<ServicePortName, ServicePortInfo> currentServices = ServiceTracker.servicePorts(services.get());
        Map<ServicePortName, List<EndpointInfo>> currentEndpoints = EndpointsTracker.endpoints(slices, nodeName);
        IncrementalGenerator.Generation generation = generator.generate(currentServices, currentEndpoints);
        IptablesRules desired = generation.rules();
        boolean full = applied == null || System.nanoTime() - lastFullSyncNanos > FULL_SYNC_PERIOD.toNanos();

        if (!full && desired.equals(applied)) {
            // A change that needs no rule change is in place all the same.
            appliedRules = generation.servicePortRules();
            return finish(false, currentServices.size(), start, Duration.ZERO, triggerTimes, slices);
        }
        Set<String> stale = new HashSet<>();
        for (String chain : full ? executor.chains("nat") : applied.nat().chainNames()) {
            if (isServiceChain(chain) && !desired.nat().chains().containsKey(chain)) {
                stale.add(chain);
            }
        }
        IptablesRules previous = applied;
        applied = null;
        long restoreStart = System.nanoTime();
        executor.restore(desired.restoreInput(full ? null : previous, stale));
        Duration restore = Duration.ofNanos(System.nanoTime() - restoreStart);
        if (full) {
            executor.ensureJumpRules();
            lastFullSyncNanos = System.nanoTime();
        }
        applied = desired;
        SyncResult result = finish(full, currentServices.size(), start, restore, triggerTimes, slices);
        LOG.debug("{} sync wrote {} service ports, deleted {} stale chains", full ? "full" : "partial",
                full ? currentServices.size() : generation.changes().size(), stale.size());

        clearStaleUdpConntrack(generation.servicePortRules());
        return result;
    }

    private static boolean isServiceChain(String chain) {
        for (String prefix : SERVICE_CHAIN_PREFIXES) {
            if (chain.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** The result of a sync whose rules are in place: the latencies of the changes new since the last one. */
    private SyncResult finish(boolean full, int servicePorts, long startNanos, Duration restore, Map<String, Instant> triggerTimes,
            List<EndpointSlice> slices) {
        Instant now = clock.instant();
        Map<String, String> serviceOfSlice = new HashMap<>();
        for (EndpointSlice slice : slices) {
            Map<String, String> labels = slice.getMetadata().getLabels();
            String service = labels == null ? null : labels.get(EndpointsTracker.SERVICE_NAME_LABEL);
            serviceOfSlice.put(sliceKey(slice), slice.getMetadata().getNamespace() + "/" + (service == null ? "" : service));
        }
        List<SyncResult.ProgrammingLatency> latencies = new ArrayList<>();
        triggerTimes.forEach((slice, triggerTime) -> {
            // Only changes made while this proxier ran: an old trigger time seen at start-up says nothing about it.
            if (!triggerTime.equals(appliedTriggerTimes.get(slice)) && triggerTime.isAfter(started)) {
                latencies.add(new SyncResult.ProgrammingLatency(serviceOfSlice.get(slice), Duration.between(triggerTime, now)));
            }
        });
        appliedTriggerTimes = triggerTimes;
        SyncResult result = new SyncResult(full, servicePorts, Duration.ofNanos(System.nanoTime() - startNanos), restore, latencies);
        if (LOG.isDebugEnabled()) {
            LOG.debug("SyncProxyRules complete: full={} servicePorts={} elapsed={}ms restore={}ms", full, servicePorts,
                    millis(result.elapsed()), millis(restore));
            for (SyncResult.ProgrammingLatency latency : latencies) {
                LOG.debug("network programming latency: service={} latency={}ms", latency.service(), millis(latency.latency()));
            }
        }
        return result;
    }

    private static String millis(Duration duration) {
        return String.format(Locale.ROOT, "%.3f", duration.toNanos() / 1e6);
    }

    /** The parseable trigger-time annotations of the slices, by {@code namespace/name}. */
    private static Map<String, Instant> triggerTimes(List<EndpointSlice> slices) {
        Map<String, Instant> times = new HashMap<>();
        for (EndpointSlice slice : slices) {
            Map<String, String> annotations = slice.getMetadata().getAnnotations();
            String value = annotations == null ? null : annotations.get(LAST_CHANGE_TRIGGER_TIME);
            if (value == null || value.isEmpty()) {
                continue;
            }
            try {
                times.put(sliceKey(slice), OffsetDateTime.parse(value).toInstant());
            } catch (DateTimeParseException e) {
                // Upstream ignores a malformed annotation too: the change is programmed, just not measured.
            }
        }
        return times;
    }

    private static String sliceKey(EndpointSlice slice) {
        return slice.getMetadata().getNamespace() + "/" + slice.getMetadata().getName();
    }

    /**
     * Clears the UDP conntrack entries of the endpoints that served a service port at the last write and serve it no
     * more. Only service ports whose rules were regenerated can have lost endpoints: the others still have the very
     * same rules object.
     */
    private void clearStaleUdpConntrack(Map<ServicePortName, ServicePortRules> current) {
        if (conntrackInstalled) {
            for (Map.Entry<ServicePortName, ServicePortRules> entry : appliedRules.entrySet()) {
                ServicePortRules before = entry.getValue();
                ServicePortRules after = current.get(entry.getKey());
                if (after == before || !"UDP".equals(before.service().protocol())) {
                    continue;
                }
                List<EndpointInfo> kept = after == null ? List.of() : after.usableEndpoints();
                for (EndpointInfo endpoint : before.usableEndpoints()) {
                    if (kept.stream().noneMatch(candidate -> candidate.ip().equals(endpoint.ip()))) {
                        try {
                            executor.clearConntrack("udp", before.service().clusterIp(), endpoint.ip());
                        } catch (IOException e) {
                            LOG.warn("{}", e.getMessage());
                        }
                    }
                }
            }
        }
        appliedRules = current;
    }

    /** Stops the loop; the rules stay in place, as upstream's kube-proxy leaves them on exit. */
    @Override
    public synchronized void close() {
        loop.shutdownNow();
    }
}
