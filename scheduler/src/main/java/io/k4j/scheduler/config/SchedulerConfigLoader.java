package io.k4j.scheduler.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@code KubeSchedulerConfiguration} (YAML or JSON), decodes it strictly (unknown fields are errors, as
 * upstream's strict decoding) and validates it, collecting every error with the path of its field. Stateless and
 * thread-safe.
 */
public final class SchedulerConfigLoader {
    private static final Set<String> TOP_LEVEL_FIELDS = Set.of("apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
            "healthzBindAddress", "metricsBindAddress", "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
            "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders", "delayCacheUntilActive");
    private static final Set<String> PROFILE_FIELDS = Set.of("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig");
    private static final Set<String> PLUGIN_SET_FIELDS = Set.of("enabled", "disabled");

    private SchedulerConfigLoader() {}

    /** The configuration when no file is given: one {@code default-scheduler} profile with upstream's defaults. */
    public static KubeSchedulerConfiguration defaults() {
        return parse(JsonNodeFactory.instance.objectNode().put("apiVersion", KubeSchedulerConfiguration.API_VERSION)
                .put("kind", KubeSchedulerConfiguration.KIND));
    }

    /**
     * @throws InvalidConfigurationException naming each invalid field
     */
    public static KubeSchedulerConfiguration load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new InvalidConfigurationException(List.of("could not read scheduler configuration " + file + ": " + e.getMessage()));
        }
        return parse(text);
    }

    public static KubeSchedulerConfiguration parse(String text) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(text);
        } catch (IOException e) {
            throw new InvalidConfigurationException(List.of("could not decode scheduler configuration: " + e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new InvalidConfigurationException(List.of("scheduler configuration must be an object"));
        }
        return parse(root);
    }

    static KubeSchedulerConfiguration parse(JsonNode root) {
        List<String> errors = new ArrayList<>();
        unknownFields(root, TOP_LEVEL_FIELDS, "", errors);
        String apiVersion = root.path("apiVersion").asText("");
        if (!apiVersion.equals(KubeSchedulerConfiguration.API_VERSION)) {
            errors.add("apiVersion: Unsupported value: \"" + apiVersion + "\": supported values: \"" + KubeSchedulerConfiguration.API_VERSION + "\"");
        }
        String kind = root.path("kind").asText("");
        if (!kind.equals(KubeSchedulerConfiguration.KIND)) {
            errors.add("kind: Unsupported value: \"" + kind + "\": supported values: \"" + KubeSchedulerConfiguration.KIND + "\"");
        }
        int percentage = integer(root, "percentageOfNodesToScore", 0, "", errors);
        if (percentage < 0 || percentage > 100) {
            errors.add("percentageOfNodesToScore: Invalid value: " + percentage + ": not in valid range [0-100]");
        }
        int initialBackoff = integer(root, "podInitialBackoffSeconds", 1, "", errors);
        if (initialBackoff <= 0) {
            errors.add("podInitialBackoffSeconds: Invalid value: " + initialBackoff + ": must be greater than 0");
        }
        int maxBackoff = integer(root, "podMaxBackoffSeconds", 10, "", errors);
        if (maxBackoff < initialBackoff) {
            errors.add("podMaxBackoffSeconds: Invalid value: " + maxBackoff + ": must be greater than or equal to PodInitialBackoffSeconds");
        }
        int parallelism = integer(root, "parallelism", 16, "", errors);
        if (parallelism <= 0) {
            errors.add("parallelism: Invalid value: " + parallelism + ": should be an integer greater than 0");
        }
        JsonNode extenders = root.get("extenders");
        if (extenders != null && !extenders.isNull() && !extenders.isEmpty()) {
            errors.add("extenders: Forbidden: scheduler extenders are not supported by k4j");
        }
        List<Profile> profiles = new ArrayList<>();
        JsonNode profilesNode = root.get("profiles");
        if (profilesNode == null || profilesNode.isNull() || (profilesNode.isArray() && profilesNode.isEmpty())) {
            profiles.add(new Profile(KubeSchedulerConfiguration.DEFAULT_SCHEDULER_NAME, 0, PluginSetConfig.EMPTY, Map.of(), Map.of()));
        } else if (!profilesNode.isArray()) {
            errors.add("profiles: Invalid value: must be a list");
        } else {
            Set<String> names = new HashSet<>();
            for (int i = 0; i < profilesNode.size(); i++) {
                Profile profile = parseProfile(profilesNode.get(i), "profiles[" + i + "]", errors);
                if (profile != null) {
                    if (!names.add(profile.schedulerName())) {
                        errors.add("profiles[" + i + "].schedulerName: Duplicate value: \"" + profile.schedulerName() + "\"");
                    }
                    profiles.add(profile);
                }
            }
            validateQueueSort(profiles, errors);
        }
        if (!errors.isEmpty()) {
            throw new InvalidConfigurationException(errors);
        }
        return new KubeSchedulerConfiguration(percentage, Duration.ofSeconds(initialBackoff), Duration.ofSeconds(maxBackoff), parallelism, profiles);
    }

    private static void validateQueueSort(List<Profile> profiles, List<String> errors) {
        if (profiles.size() < 2) {
            return;
        }
        String first = queueSortOf(profiles.get(0));
        for (int i = 1; i < profiles.size(); i++) {
            if (!queueSortOf(profiles.get(i)).equals(first)) {
                errors.add("profiles[" + i + "].plugins.queueSort: Invalid value: \"" + queueSortOf(profiles.get(i)) + "\": must be the same for all profiles");
            }
        }
    }

    private static String queueSortOf(Profile profile) {
        List<PluginEntry> enabled = profile.extensionPoint(ExtensionPoint.QUEUE_SORT).enabled();
        return enabled.isEmpty() ? "PrioritySort" : enabled.get(0).name();
    }

    private static Profile parseProfile(JsonNode node, String path, List<String> errors) {
        if (!node.isObject()) {
            errors.add(path + ": Invalid value: must be an object");
            return null;
        }
        unknownFields(node, PROFILE_FIELDS, path + ".", errors);
        String schedulerName = node.path("schedulerName").asText("");
        if (schedulerName.isEmpty()) {
            errors.add(path + ".schedulerName: Required value");
        }
        int percentage = integer(node, "percentageOfNodesToScore", 0, path + ".", errors);
        if (percentage < 0 || percentage > 100) {
            errors.add(path + ".percentageOfNodesToScore: Invalid value: " + percentage + ": not in valid range [0-100]");
        }
        PluginSetConfig multiPoint = PluginSetConfig.EMPTY;
        Map<ExtensionPoint, PluginSetConfig> points = new EnumMap<>(ExtensionPoint.class);
        JsonNode plugins = node.get("plugins");
        if (plugins != null && !plugins.isNull()) {
            Set<String> known = new HashSet<>();
            known.add("multiPoint");
            for (ExtensionPoint point : ExtensionPoint.values()) {
                known.add(point.fieldName());
            }
            unknownFields(plugins, known, path + ".plugins.", errors);
            multiPoint = parsePluginSet(plugins.get("multiPoint"), path + ".plugins.multiPoint", errors);
            for (ExtensionPoint point : ExtensionPoint.values()) {
                JsonNode set = plugins.get(point.fieldName());
                if (set != null && !set.isNull()) {
                    points.put(point, parsePluginSet(set, path + ".plugins." + point.fieldName(), errors));
                }
            }
            PluginSetConfig queueSort = points.get(ExtensionPoint.QUEUE_SORT);
            if (queueSort != null && queueSort.enabled().size() > 1) {
                errors.add(path + ".plugins.queueSort.enabled: Invalid value: only one queue sort plugin may be enabled");
            }
        }
        Map<String, JsonNode> pluginConfig = new LinkedHashMap<>();
        JsonNode configs = node.get("pluginConfig");
        if (configs != null && !configs.isNull()) {
            if (!configs.isArray()) {
                errors.add(path + ".pluginConfig: Invalid value: must be a list");
            } else {
                for (int i = 0; i < configs.size(); i++) {
                    JsonNode config = configs.get(i);
                    String name = config.path("name").asText("");
                    String configPath = path + ".pluginConfig[" + i + "]";
                    unknownFields(config, Set.of("name", "args"), configPath + ".", errors);
                    if (name.isEmpty()) {
                        errors.add(configPath + ".name: Required value");
                    } else if (pluginConfig.containsKey(name)) {
                        errors.add(configPath + ".name: Duplicate value: \"" + name + "\"");
                    } else {
                        pluginConfig.put(name, config.get("args"));
                    }
                }
            }
        }
        return new Profile(schedulerName, percentage, multiPoint, points, pluginConfig);
    }

    private static PluginSetConfig parsePluginSet(JsonNode node, String path, List<String> errors) {
        if (node == null || node.isNull()) {
            return PluginSetConfig.EMPTY;
        }
        if (!node.isObject()) {
            errors.add(path + ": Invalid value: must be an object");
            return PluginSetConfig.EMPTY;
        }
        unknownFields(node, PLUGIN_SET_FIELDS, path + ".", errors);
        return new PluginSetConfig(parseEntries(node.get("enabled"), path + ".enabled", errors), parseEntries(node.get("disabled"), path + ".disabled", errors));
    }

    private static List<PluginEntry> parseEntries(JsonNode node, String path, List<String> errors) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            errors.add(path + ": Invalid value: must be a list");
            return List.of();
        }
        List<PluginEntry> entries = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            String entryPath = path + "[" + i + "]";
            unknownFields(entry, Set.of("name", "weight"), entryPath + ".", errors);
            String name = entry.path("name").asText("");
            if (name.isEmpty()) {
                errors.add(entryPath + ".name: Required value");
                continue;
            }
            int weight = integer(entry, "weight", 0, entryPath + ".", errors);
            if (weight < 0 || weight > 100) {
                errors.add(entryPath + ".weight: Invalid value: " + weight + ": must be in the range [0, 100]");
            }
            entries.add(new PluginEntry(name, weight));
        }
        return entries;
    }

    private static int integer(JsonNode node, String field, int defaultValue, String prefix, List<String> errors) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return defaultValue;
        }
        if (!value.isIntegralNumber()) {
            errors.add(prefix + field + ": Invalid value: " + value + ": must be an integer");
            return defaultValue;
        }
        return value.intValue();
    }

    private static void unknownFields(JsonNode node, Set<String> known, String prefix, List<String> errors) {
        if (!node.isObject()) {
            return;
        }
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name)) {
                errors.add(prefix + name + ": unknown field \"" + name + "\"");
            }
        }
    }
}
