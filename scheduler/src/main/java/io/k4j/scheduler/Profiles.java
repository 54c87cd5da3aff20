package io.k4j.scheduler;

import io.k4j.scheduler.config.ExtensionPoint;
import io.k4j.scheduler.config.InvalidConfigurationException;
import io.k4j.scheduler.config.KubeSchedulerConfiguration;
import io.k4j.scheduler.config.PluginEntry;
import io.k4j.scheduler.config.PluginSetConfig;
import io.k4j.scheduler.config.Profile;
import io.k4j.scheduler.framework.BindPlugin;
import io.k4j.scheduler.framework.FilterPlugin;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.FrameworkHandle;
import io.k4j.scheduler.framework.PermitPlugin;
import io.k4j.scheduler.framework.Plugin;
import io.k4j.scheduler.framework.PluginFactory;
import io.k4j.scheduler.framework.PostBindPlugin;
import io.k4j.scheduler.framework.PostFilterPlugin;
import io.k4j.scheduler.framework.PreBindPlugin;
import io.k4j.scheduler.framework.PreEnqueuePlugin;
import io.k4j.scheduler.framework.PreFilterPlugin;
import io.k4j.scheduler.framework.PreScorePlugin;
import io.k4j.scheduler.framework.QueueSortPlugin;
import io.k4j.scheduler.framework.ReservePlugin;
import io.k4j.scheduler.framework.ScorePlugin;
import io.k4j.scheduler.plugins.InTreeRegistry;
import io.k4j.scheduler.plugins.Names;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds one {@link Framework} per configured profile: merges the profile's plugin configuration into upstream's
 * default plugins, expands {@code multiPoint} plugins onto every extension point they implement (plugins configured
 * at a specific point keep that point's order and weight), and instantiates each plugin once with its args.
 * Stateless and thread-safe.
 */
public final class Profiles {
    /** Upstream's default profile: every plugin at multiPoint, with the default score weights. */
    public static final List<PluginEntry> DEFAULT_MULTI_POINT = List.of(
            new PluginEntry(Names.SCHEDULING_GATES, 0),
            new PluginEntry(Names.PRIORITY_SORT, 0),
            new PluginEntry(Names.NODE_UNSCHEDULABLE, 0),
            new PluginEntry(Names.NODE_NAME, 0),
            new PluginEntry(Names.TAINT_TOLERATION, 3),
            new PluginEntry(Names.NODE_AFFINITY, 2),
            new PluginEntry(Names.NODE_PORTS, 0),
            new PluginEntry(Names.NODE_RESOURCES_FIT, 1),
            new PluginEntry(Names.POD_TOPOLOGY_SPREAD, 2),
            new PluginEntry(Names.INTER_POD_AFFINITY, 2),
            new PluginEntry(Names.DEFAULT_PREEMPTION, 0),
            new PluginEntry(Names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
            new PluginEntry(Names.IMAGE_LOCALITY, 1),
            new PluginEntry(Names.DEFAULT_BINDER, 0));

    private Profiles() {}

    /**
     * @throws InvalidConfigurationException naming the field of an unknown plugin or invalid args
     */
    public static Map<String, Framework> build(KubeSchedulerConfiguration config, Map<String, PluginFactory> registry, Framework.Services services) {
        Map<String, Framework> frameworks = new LinkedHashMap<>();
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < config.profiles().size(); i++) {
            Profile profile = config.profiles().get(i);
            String path = "profiles[" + i + "]";
            try {
                frameworks.put(profile.schedulerName(), new Framework(profile.schedulerName(), services, profile.percentageOfNodesToScore(),
                        handle -> pluginSet(profile, path, registry, handle)));
            } catch (InvalidConfigurationException e) {
                errors.addAll(e.errors());
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidConfigurationException(errors);
        }
        return frameworks;
    }

    private static Framework.PluginSet pluginSet(Profile profile, String path, Map<String, PluginFactory> registry, FrameworkHandle handle) {
        List<String> errors = new ArrayList<>();
        List<PluginEntry> multiPoint = mergeMultiPoint(profile.multiPoint());
        checkNames(profile.multiPoint().enabled(), path + ".plugins.multiPoint.enabled", registry, errors);
        for (ExtensionPoint point : ExtensionPoint.values()) {
            checkNames(profile.extensionPoint(point).enabled(), path + ".plugins." + point.fieldName() + ".enabled", registry, errors);
        }
        for (String name : profile.pluginConfig().keySet()) {
            if (!registry.containsKey(name) && !InTreeRegistry.UNSUPPORTED.contains(name)) {
                errors.add(path + ".pluginConfig[" + name + "].name: Invalid value: \"" + name + "\": plugin does not exist");
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidConfigurationException(errors);
        }
        Map<String, Plugin> instances = new LinkedHashMap<>();
        Map<ExtensionPoint, List<String>> pointPlugins = new HashMap<>();
        Map<String, Integer> multiPointWeights = new HashMap<>();
        multiPoint.forEach(entry -> multiPointWeights.put(entry.name(), entry.weight()));
        for (ExtensionPoint point : ExtensionPoint.values()) {
            PluginSetConfig specific = profile.extensionPoint(point);
            Set<String> specificNames = new LinkedHashSet<>();
            specific.enabled().forEach(entry -> specificNames.add(entry.name()));
            List<String> overridden = new ArrayList<>();
            List<String> multiOnly = new ArrayList<>();
            List<String> specificOnly = new ArrayList<>();
            for (String name : specificNames) {
                if (multiPointWeights.containsKey(name)) {
                    overridden.add(name);
                } else {
                    specificOnly.add(name);
                }
            }
            for (PluginEntry entry : multiPoint) {
                if (specificNames.contains(entry.name()) || specific.isDisabled(entry.name())) {
                    continue;
                }
                Plugin plugin = instance(entry.name(), profile, path, registry, handle, instances);
                if (implementsPoint(plugin, point)) {
                    multiOnly.add(entry.name());
                }
            }
            List<String> ordered = new ArrayList<>(overridden);
            ordered.addAll(multiOnly);
            ordered.addAll(specificOnly);
            for (String name : ordered) {
                Plugin plugin = instance(name, profile, path, registry, handle, instances);
                if (!implementsPoint(plugin, point)) {
                    throw new InvalidConfigurationException(List.of(path + ".plugins." + point.fieldName() + ".enabled: Invalid value: \"" + name
                            + "\": plugin does not extend " + point.fieldName() + " plugin"));
                }
            }
            pointPlugins.put(point, ordered);
        }
        Map<String, Integer> weights = new HashMap<>();
        for (String name : pointPlugins.get(ExtensionPoint.SCORE)) {
            int weight = profile.extensionPoint(ExtensionPoint.SCORE).enabled().stream().filter(entry -> entry.name().equals(name))
                    .mapToInt(PluginEntry::weight).findFirst().orElse(0);
            if (weight == 0) {
                weight = multiPointWeights.getOrDefault(name, 0);
            }
            weights.put(name, weight == 0 ? 1 : weight);
        }
        List<String> queueSort = pointPlugins.get(ExtensionPoint.QUEUE_SORT);
        if (queueSort.size() != 1) {
            throw new InvalidConfigurationException(List.of(path + ".plugins.queueSort: Invalid value: exactly one queue sort plugin must be enabled, found " + queueSort.size()));
        }
        if (pointPlugins.get(ExtensionPoint.BIND).isEmpty()) {
            throw new InvalidConfigurationException(List.of(path + ".plugins.bind: Invalid value: at least one bind plugin must be enabled"));
        }
        return new Framework.PluginSet(instances,
                (QueueSortPlugin) instances.get(queueSort.get(0)),
                typed(pointPlugins.get(ExtensionPoint.PRE_ENQUEUE), instances, PreEnqueuePlugin.class),
                typed(pointPlugins.get(ExtensionPoint.PRE_FILTER), instances, PreFilterPlugin.class),
                typed(pointPlugins.get(ExtensionPoint.FILTER), instances, FilterPlugin.class),
                typed(pointPlugins.get(ExtensionPoint.POST_FILTER), instances, PostFilterPlugin.class),
                typed(pointPlugins.get(ExtensionPoint.PRE_SCORE), instances, PreScorePlugin.class),
                typed(pointPlugins.get(ExtensionPoint.SCORE), instances, ScorePlugin.class),
                weights,
                typed(pointPlugins.get(ExtensionPoint.RESERVE), instances, ReservePlugin.class),
                typed(pointPlugins.get(ExtensionPoint.PERMIT), instances, PermitPlugin.class),
                typed(pointPlugins.get(ExtensionPoint.PRE_BIND), instances, PreBindPlugin.class),
                typed(pointPlugins.get(ExtensionPoint.BIND), instances, BindPlugin.class),
                typed(pointPlugins.get(ExtensionPoint.POST_BIND), instances, PostBindPlugin.class));
    }

    /** The default multiPoint plugins minus the disabled ones, with enabled ones replacing or appended. */
    static List<PluginEntry> mergeMultiPoint(PluginSetConfig custom) {
        List<PluginEntry> merged = new ArrayList<>();
        for (PluginEntry entry : DEFAULT_MULTI_POINT) {
            if (!custom.isDisabled(entry.name())) {
                merged.add(entry);
            }
        }
        for (PluginEntry entry : custom.enabled()) {
            boolean replaced = false;
            for (int i = 0; i < merged.size(); i++) {
                if (merged.get(i).name().equals(entry.name())) {
                    merged.set(i, entry);
                    replaced = true;
                }
            }
            if (!replaced) {
                merged.add(entry);
            }
        }
        return merged;
    }

    private static void checkNames(List<PluginEntry> entries, String path, Map<String, PluginFactory> registry, List<String> errors) {
        for (int i = 0; i < entries.size(); i++) {
            String name = entries.get(i).name();
            if (InTreeRegistry.UNSUPPORTED.contains(name)) {
                errors.add(path + "[" + i + "].name: Invalid value: \"" + name + "\": plugin is not supported by k4j");
            } else if (!registry.containsKey(name)) {
                errors.add(path + "[" + i + "].name: Invalid value: \"" + name + "\": plugin does not exist");
            }
        }
    }

    private static Plugin instance(String name, Profile profile, String path, Map<String, PluginFactory> registry, FrameworkHandle handle, Map<String, Plugin> instances) {
        Plugin existing = instances.get(name);
        if (existing != null) {
            return existing;
        }
        PluginFactory factory = registry.get(name);
        Plugin plugin;
        try {
            plugin = factory.create(profile.pluginConfig().get(name), handle);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException(List.of(path + ".pluginConfig[" + name + "].args." + e.getMessage()));
        }
        instances.put(name, plugin);
        return plugin;
    }

    private static boolean implementsPoint(Plugin plugin, ExtensionPoint point) {
        return switch (point) {
            case PRE_ENQUEUE -> plugin instanceof PreEnqueuePlugin;
            case QUEUE_SORT -> plugin instanceof QueueSortPlugin;
            case PRE_FILTER -> plugin instanceof PreFilterPlugin;
            case FILTER -> plugin instanceof FilterPlugin;
            case POST_FILTER -> plugin instanceof PostFilterPlugin;
            case PRE_SCORE -> plugin instanceof PreScorePlugin;
            case SCORE -> plugin instanceof ScorePlugin;
            case RESERVE -> plugin instanceof ReservePlugin;
            case PERMIT -> plugin instanceof PermitPlugin;
            case PRE_BIND -> plugin instanceof PreBindPlugin;
            case BIND -> plugin instanceof BindPlugin;
            case POST_BIND -> plugin instanceof PostBindPlugin;
        };
    }

    private static <T> List<T> typed(List<String> names, Map<String, Plugin> instances, Class<T> type) {
        List<T> result = new ArrayList<>(names.size());
        for (String name : names) {
            result.add(type.cast(instances.get(name)));
        }
        return result;
    }
}
