package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scheduling profile: its plugins per extension point, their score weights and the code that runs each extension
 * point as upstream's {@code frameworkImpl} does (first rejection wins in filters, weighted sums in scoring, reverse
 * order in unreserve). Serves as the plugins' {@link FrameworkHandle}. Thread-safe once built; the scheduling cycle
 * methods are called from the scheduling thread and the parallel filter/score workers.
 */
public final class Framework implements FrameworkHandle, PluginsRunner {
    private static final Logger LOG = LoggerFactory.getLogger(Framework.class);

    private final String profileName;
    private final Services services;
    private final int percentageOfNodesToScore;
    private final Map<String, WaitingPod> waitingPods = new ConcurrentHashMap<>();
    private volatile Snapshot snapshot = new Snapshot();
    private final PluginSet plugins;
    private final Map<String, List<ClusterEvent>> eventsToRegister;

    /**
     * The services every profile shares.
     *
     * @param clusterView informer-backed cluster objects
     * @param client the apiserver writes
     * @param nominator the queue's nominated pods
     * @param parallelizer the pool for filters and scores
     * @param clock the time source
     */
    public record Services(ClusterView clusterView, SchedulerClient client, PodNominator nominator, Parallelizer parallelizer, java.time.InstantSource clock) {
        public Services {
            requireNonNull(clusterView, "clusterView is null");
            requireNonNull(client, "client is null");
            requireNonNull(nominator, "nominator is null");
            requireNonNull(parallelizer, "parallelizer is null");
            requireNonNull(clock, "clock is null");
        }
    }

    /**
     * The plugins of a profile per extension point, in call order, and the score weights.
     *
     * @param all every plugin instance by name
     * @param scoreWeights the weight of each enabled score plugin
     */
    public record PluginSet(Map<String, Plugin> all, QueueSortPlugin queueSort, List<PreEnqueuePlugin> preEnqueue,
            List<PreFilterPlugin> preFilter, List<FilterPlugin> filter, List<PostFilterPlugin> postFilter,
            List<PreScorePlugin> preScore, List<ScorePlugin> score, Map<String, Integer> scoreWeights,
            List<ReservePlugin> reserve, List<PermitPlugin> permit, List<PreBindPlugin> preBind,
            List<BindPlugin> bind, List<PostBindPlugin> postBind) {
        public PluginSet {
            all = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(all, "all is null")));
            requireNonNull(queueSort, "queueSort is null");
            preEnqueue = List.copyOf(preEnqueue);
            preFilter = List.copyOf(preFilter);
            filter = List.copyOf(filter);
            postFilter = List.copyOf(postFilter);
            preScore = List.copyOf(preScore);
            score = List.copyOf(score);
            scoreWeights = Map.copyOf(scoreWeights);
            reserve = List.copyOf(reserve);
            permit = List.copyOf(permit);
            preBind = List.copyOf(preBind);
            bind = List.copyOf(bind);
            postBind = List.copyOf(postBind);
        }
    }

    /**
     * @param profileName the profile's schedulerName
     * @param percentageOfNodesToScore 0 for upstream's adaptive default, else 1..100
     * @param pluginsFactory builds the plugin set given this framework as the plugins' handle
     */
    public Framework(String profileName, Services services, int percentageOfNodesToScore, Function<FrameworkHandle, PluginSet> pluginsFactory) {
        this.profileName = requireNonNull(profileName, "profileName is null");
        this.services = requireNonNull(services, "services is null");
        this.percentageOfNodesToScore = percentageOfNodesToScore;
        this.plugins = requireNonNull(pluginsFactory.apply(this), "plugins is null");
        if (plugins.bind().isEmpty()) {
            throw new IllegalArgumentException("profiles[" + profileName + "].plugins.bind: at least one bind plugin is needed");
        }
        this.eventsToRegister = computeEventsToRegister();
    }

    @Override
    public String profileName() {
        return profileName;
    }

    @Override
    public Snapshot snapshot() {
        return snapshot;
    }

    public void setSnapshot(Snapshot snapshot) {
        this.snapshot = requireNonNull(snapshot, "snapshot is null");
    }

    @Override
    public ClusterView clusterView() {
        return services.clusterView();
    }

    @Override
    public SchedulerClient client() {
        return services.client();
    }

    @Override
    public PodNominator nominator() {
        return services.nominator();
    }

    @Override
    public Parallelizer parallelizer() {
        return services.parallelizer();
    }

    @Override
    public java.time.InstantSource clock() {
        return services.clock();
    }

    @Override
    public PluginsRunner pluginsRunner() {
        return this;
    }

    public PluginSet plugins() {
        return plugins;
    }

    /** The profile's percentageOfNodesToScore, 0 when the global or adaptive value applies. */
    public int percentageOfNodesToScore() {
        return percentageOfNodesToScore;
    }

    public Comparator<QueuedPodInfo> queueSortComparator() {
        return plugins.queueSort()::compare;
    }

    public boolean hasPostFilterPlugins() {
        return !plugins.postFilter().isEmpty();
    }

    public boolean hasScorePlugins() {
        return !plugins.score().isEmpty();
    }

    /**
     * The cluster events each plugin registered; a rejecting plugin that registers none is interested in all.
     */
    public Map<String, List<ClusterEvent>> eventsToRegister() {
        return eventsToRegister;
    }

    private Map<String, List<ClusterEvent>> computeEventsToRegister() {
        Map<String, List<ClusterEvent>> events = new LinkedHashMap<>();
        for (Plugin plugin : plugins.all().values()) {
            if (plugin instanceof EnqueueExtensions extensions) {
                events.put(plugin.name(), List.copyOf(extensions.eventsToRegister()));
            } else if (plugin instanceof PreEnqueuePlugin || plugin instanceof PreFilterPlugin || plugin instanceof FilterPlugin
                    || plugin instanceof ReservePlugin || plugin instanceof PermitPlugin) {
                events.put(plugin.name(), List.of(new ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "*")));
            }
        }
        return java.util.Collections.unmodifiableMap(events);
    }

    public Status runPreEnqueuePlugins(PodInfo pod) {
        for (PreEnqueuePlugin plugin : plugins.preEnqueue()) {
            Status status = plugin.preEnqueue(pod);
            if (!status.isSuccess()) {
                return status.withPlugin(plugin.name());
            }
        }
        return Status.SUCCESS;
    }

    /**
     * The combined PreFilter outcome.
     *
     * @param unschedulablePlugins the plugins that rejected the pod, or on success the plugins that narrowed the nodes
     */
    public record PreFilterOutcome(Status status, PreFilterResult result, Set<String> unschedulablePlugins) {}

    public PreFilterOutcome runPreFilterPlugins(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        PreFilterResult result = PreFilterResult.ALL_NODES;
        Set<String> rejectors = new HashSet<>();
        List<String> narrowingPlugins = new ArrayList<>();
        for (PreFilterPlugin plugin : plugins.preFilter()) {
            Status status = callSafely(plugin, () -> plugin.preFilter(state, pod, nodes));
            if (status.isSkip()) {
                state.skipFilterPlugins().add(plugin.name());
                continue;
            }
            if (!status.isSuccess()) {
                status = status.withPlugin(plugin.name());
                if (status.isRejected()) {
                    rejectors.add(plugin.name());
                }
                return new PreFilterOutcome(status, result, rejectors);
            }
            PreFilterResult pluginResult = plugin.preFilterResult(state, pod);
            if (pluginResult != null && !pluginResult.allNodes()) {
                narrowingPlugins.add(plugin.name());
                result = result.merge(pluginResult);
                if (result.nodeNames().isEmpty()) {
                    rejectors.addAll(narrowingPlugins);
                    String message = narrowingPlugins.size() == 1 ? "node(s) didn't satisfy plugin " + narrowingPlugins.get(0)
                            : "node(s) didn't satisfy plugins " + goList(narrowingPlugins);
                    return new PreFilterOutcome(Status.unresolvable(message).withPlugin(plugin.name()), result, rejectors);
                }
            }
        }
        state.setSkipFilterMask(filterSkipMask(state));
        return new PreFilterOutcome(Status.SUCCESS, result, Set.copyOf(narrowingPlugins));
    }

    /** A list printed as Go prints a sorted string slice ({@code [A B]}), as upstream's messages show plugin lists. */
    public static String goList(java.util.Collection<String> names) {
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(null);
        return "[" + String.join(" ", sorted) + "]";
    }

    private static Status callSafely(Plugin plugin, java.util.function.Supplier<Status> call) {
        try {
            Status status = call.get();
            return status == null ? Status.SUCCESS : status;
        } catch (PluginException e) {
            return e.status();
        } catch (RuntimeException e) {
            LOG.warn("Plugin {} failed", plugin.name(), e);
            return Status.error(e);
        }
    }

    @Override
    public Status runFilterPlugins(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        boolean[] skipped = state.skipFilterMask();
        if (skipped == null) {
            skipped = filterSkipMask(state);
        }
        List<FilterPlugin> filters = plugins.filter();
        for (int i = 0; i < filters.size(); i++) {
            if (skipped[i]) {
                continue;
            }
            FilterPlugin plugin = filters.get(i);
            Status status;
            try {
                status = plugin.filter(state, pod, nodeInfo);
            } catch (PluginException e) {
                status = e.status();
            } catch (RuntimeException e) {
                LOG.warn("Filter plugin {} failed on node {}", plugin.name(), nodeInfo.name(), e);
                status = Status.error(e);
            }
            if (status != null && !status.isSuccess()) {
                return status.withPlugin(plugin.name());
            }
        }
        return Status.SUCCESS;
    }

    private boolean[] filterSkipMask(CycleState state) {
        List<FilterPlugin> filters = plugins.filter();
        boolean[] mask = new boolean[filters.size()];
        for (int i = 0; i < mask.length; i++) {
            mask[i] = state.skipFilterPlugins().contains(filters.get(i).name());
        }
        return mask;
    }

    /**
     * Runs filters the way upstream does when pods of equal or higher priority are nominated to the node: once with
     * those pods added (they will take the room their preemption freed) and, if that passes, once without them
     * (affinity to a nominated pod must not count, as it may never arrive).
     */
    @Override
    public Status runFilterPluginsWithNominatedPods(CycleState state, PodInfo pod, NodeInfo nodeInfo) {
        List<PodInfo> nominated = services.nominator().nominatedPodsForNode(nodeInfo.name());
        if (nominated.isEmpty()) {
            return runFilterPlugins(state, pod, nodeInfo);
        }
        boolean added = false;
        CycleState stateWithNominated = state;
        NodeInfo nodeWithNominated = nodeInfo;
        for (PodInfo nominatedPod : nominated) {
            if (nominatedPod.priority() >= pod.priority() && !nominatedPod.uid().equals(pod.uid())) {
                if (!added) {
                    stateWithNominated = state.copy();
                    nodeWithNominated = nodeInfo.copy();
                    added = true;
                }
                nodeWithNominated.addPod(nominatedPod);
                Status status = runPreFilterExtensionAddPod(stateWithNominated, pod, nominatedPod, nodeWithNominated);
                if (!status.isSuccess()) {
                    return status;
                }
            }
        }
        Status status = runFilterPlugins(stateWithNominated, pod, nodeWithNominated);
        if (!status.isSuccess() || !added) {
            return status;
        }
        return runFilterPlugins(state, pod, nodeInfo);
    }

    @Override
    public Status runPreFilterExtensionAddPod(CycleState state, PodInfo podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo) {
        for (PreFilterPlugin plugin : plugins.preFilter()) {
            PreFilterPlugin.PreFilterExtensions extensions = plugin.preFilterExtensions();
            if (extensions == null || state.skipFilterPlugins().contains(plugin.name())) {
                continue;
            }
            Status status = callSafely(plugin, () -> extensions.addPod(state, podToSchedule, podToAdd, nodeInfo));
            if (!status.isSuccess()) {
                return status.withPlugin(plugin.name());
            }
        }
        return Status.SUCCESS;
    }

    @Override
    public Status runPreFilterExtensionRemovePod(CycleState state, PodInfo podToSchedule, PodInfo podToRemove, NodeInfo nodeInfo) {
        for (PreFilterPlugin plugin : plugins.preFilter()) {
            PreFilterPlugin.PreFilterExtensions extensions = plugin.preFilterExtensions();
            if (extensions == null || state.skipFilterPlugins().contains(plugin.name())) {
                continue;
            }
            Status status = callSafely(plugin, () -> extensions.removePod(state, podToSchedule, podToRemove, nodeInfo));
            if (!status.isSuccess()) {
                return status.withPlugin(plugin.name());
            }
        }
        return Status.SUCCESS;
    }

    /** Runs PostFilter plugins until one succeeds or fails with an error. */
    public PostFilterResult runPostFilterPlugins(CycleState state, PodInfo pod, NodeToStatus statuses) {
        PostFilterResult last = new PostFilterResult(Status.unschedulable(), "");
        for (PostFilterPlugin plugin : plugins.postFilter()) {
            PostFilterResult result;
            try {
                result = plugin.postFilter(state, pod, statuses);
            } catch (RuntimeException e) {
                LOG.warn("PostFilter plugin {} failed", plugin.name(), e);
                return new PostFilterResult(Status.error(e).withPlugin(plugin.name()), "");
            }
            if (result.status().isSuccess()) {
                return result;
            }
            if (!result.status().isRejected()) {
                return new PostFilterResult(result.status().withPlugin(plugin.name()), result.nominatedNodeName());
            }
            last = new PostFilterResult(result.status().withPlugin(plugin.name()), result.nominatedNodeName());
        }
        return last;
    }

    public Status runPreScorePlugins(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        for (PreScorePlugin plugin : plugins.preScore()) {
            Status status = callSafely(plugin, () -> plugin.preScore(state, pod, nodes));
            if (status.isSkip()) {
                state.skipScorePlugins().add(plugin.name());
                continue;
            }
            if (!status.isSuccess()) {
                return status.withPlugin(plugin.name());
            }
        }
        return Status.SUCCESS;
    }

    /**
     * Scores the nodes with every score plugin, normalizes and weights the scores and returns each node's total in
     * node order.
     *
     * @throws PluginException when a plugin fails
     */
    public long[] runScorePlugins(CycleState state, PodInfo pod, List<NodeInfo> nodes) {
        List<ScorePlugin> active = new ArrayList<>();
        for (ScorePlugin plugin : plugins.score()) {
            if (!state.skipScorePlugins().contains(plugin.name())) {
                active.add(plugin);
            }
        }
        // One pass over the nodes runs every plugin on a node in turn, as upstream: the node's data is read while it is
        // at hand, and the pool is handed one loop per pod instead of one per plugin.
        long[][] scores = new long[active.size()][nodes.size()];
        AtomicReference<ScoreFailure> failure = new AtomicReference<>();
        services.parallelizer().until(nodes.size(), index -> {
            NodeInfo node = nodes.get(index);
            for (int p = 0; p < scores.length; p++) {
                ScorePlugin plugin = active.get(p);
                try {
                    scores[p][index] = plugin.score(state, pod, node);
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, new ScoreFailure(plugin, e));
                    return;
                }
            }
        }, () -> failure.get() != null);
        ScoreFailure failed = failure.get();
        if (failed != null) {
            throw asPluginException(failed.plugin(), failed.cause());
        }
        long[] totals = new long[nodes.size()];
        for (int p = 0; p < scores.length; p++) {
            ScorePlugin plugin = active.get(p);
            long[] pluginScores = scores[p];
            try {
                plugin.normalizeScores(state, pod, nodes, pluginScores);
            } catch (RuntimeException e) {
                throw asPluginException(plugin, e);
            }
            int weight = plugins.scoreWeights().getOrDefault(plugin.name(), 1);
            for (int i = 0; i < pluginScores.length; i++) {
                long score = pluginScores[i];
                if (score > ScorePlugin.MAX_NODE_SCORE || score < ScorePlugin.MIN_NODE_SCORE) {
                    throw new PluginException(Status.error("plugin " + plugin.name() + " returns an invalid score " + score
                            + ", it should in the range of [0, 100] after normalizing").withPlugin(plugin.name()));
                }
                totals[i] += score * weight;
            }
        }
        return totals;
    }

    private record ScoreFailure(ScorePlugin plugin, RuntimeException cause) {}

    private static PluginException asPluginException(Plugin plugin, RuntimeException e) {
        if (e instanceof PluginException pluginException) {
            return new PluginException(pluginException.status().withPlugin(plugin.name()));
        }
        LOG.warn("Score plugin {} failed", plugin.name(), e);
        return new PluginException(Status.error(e).withPlugin(plugin.name()));
    }

    public Status runReservePluginsReserve(CycleState state, PodInfo pod, String nodeName) {
        for (ReservePlugin plugin : plugins.reserve()) {
            Status status = callSafely(plugin, () -> plugin.reserve(state, pod, nodeName));
            if (!status.isSuccess()) {
                return status.withPlugin(plugin.name());
            }
        }
        return Status.SUCCESS;
    }

    /** Calls unreserve on every reserve plugin in reverse order. */
    public void runReservePluginsUnreserve(CycleState state, PodInfo pod, String nodeName) {
        List<ReservePlugin> reserve = plugins.reserve();
        for (int i = reserve.size() - 1; i >= 0; i--) {
            try {
                reserve.get(i).unreserve(state, pod, nodeName);
            } catch (RuntimeException e) {
                LOG.warn("Unreserve of plugin {} failed", reserve.get(i).name(), e);
            }
        }
    }

    /** Runs permit plugins; a {@link Code#WAIT} result registers the pod as waiting. */
    public Status runPermitPlugins(CycleState state, PodInfo pod, String nodeName) {
        Map<String, Duration> waits = new LinkedHashMap<>();
        for (PermitPlugin plugin : plugins.permit()) {
            PermitResult result;
            try {
                result = plugin.permit(state, pod, nodeName);
            } catch (RuntimeException e) {
                return Status.error(e).withPlugin(plugin.name());
            }
            if (result.status().isWait()) {
                waits.put(plugin.name(), result.timeout());
            } else if (!result.status().isSuccess()) {
                return result.status().withPlugin(plugin.name());
            }
        }
        if (waits.isEmpty()) {
            return Status.SUCCESS;
        }
        WaitingPod waitingPod = new WaitingPod(pod, waits.keySet());
        waitingPods.put(pod.uid(), waitingPod);
        Map.Entry<String, Duration> shortest = waits.entrySet().stream().min(Map.Entry.comparingByValue()).orElseThrow();
        waitingPod.decision().completeOnTimeout(Status.unschedulable("rejected due to timeout after waiting " + shortest.getValue().toSeconds()
                + "s at plugin " + shortest.getKey()).withPlugin(shortest.getKey()), shortest.getValue().toMillis(), TimeUnit.MILLISECONDS);
        return Status.of(Code.WAIT);
    }

    /** Blocks the binding cycle until a waiting pod is allowed or rejected. */
    public Status waitOnPermit(PodInfo pod) {
        WaitingPod waitingPod = waitingPods.get(pod.uid());
        if (waitingPod == null) {
            return Status.SUCCESS;
        }
        try {
            return waitingPod.decision().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Status.error(e);
        } catch (ExecutionException e) {
            return Status.error(e.getCause());
        } finally {
            waitingPods.remove(pod.uid());
        }
    }

    /** The pod waiting on permit plugins, or null. */
    public WaitingPod waitingPod(String uid) {
        return waitingPods.get(uid);
    }

    public Status runPreBindPlugins(CycleState state, PodInfo pod, String nodeName) {
        for (PreBindPlugin plugin : plugins.preBind()) {
            Status status = callSafely(plugin, () -> plugin.preBind(state, pod, nodeName));
            if (!status.isSuccess()) {
                return status.withPlugin(plugin.name());
            }
        }
        return Status.SUCCESS;
    }

    public Status runBindPlugins(CycleState state, PodInfo pod, String nodeName) {
        Status status = Status.SKIP;
        for (BindPlugin plugin : plugins.bind()) {
            status = callSafely(plugin, () -> plugin.bind(state, pod, nodeName));
            if (status.isSkip()) {
                continue;
            }
            return status.isSuccess() ? status : status.withPlugin(plugin.name());
        }
        return status;
    }

    public void runPostBindPlugins(CycleState state, PodInfo pod, String nodeName) {
        for (PostBindPlugin plugin : plugins.postBind()) {
            try {
                plugin.postBind(state, pod, nodeName);
            } catch (RuntimeException e) {
                LOG.warn("PostBind plugin {} failed", plugin.name(), e);
            }
        }
    }
}
