package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.k4j.api.quantity.Quantity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What simulated nodes look like and how their pods behave, read from the optional {@code --simulated-node-config}
 * YAML file. Every field is optional:
 *
 * <pre>
 * capacity: {cpu: "32", memory: 256Gi, pods: "110", ephemeral-storage: 1Ti}  # allocatable = capacity
 * labels: {example.com/pool: simulated}          # added to the well-known labels
 * taints: [{key: example.com/simulated, value: "true", effect: NoSchedule}]
 * zones: [zone-a, zone-b, zone-c]                # topology.kubernetes.io/zone, round robin by node index
 * region: k4j                                    # topology.kubernetes.io/region
 * instanceType: k4j-simulated                    # node.kubernetes.io/instance-type
 * namePrefix: k4j-sim-                           # nodes are named prefix + index
 * nodeAddressCidr: 10.40.0.0/16                  # the nodes' InternalIPs
 * podRunSeconds: 3                               # how long pods that end (restartPolicy Never/OnFailure) run
 * maxConcurrentWrites: 32                        # API writes in flight at once, over all nodes
 * </pre>
 *
 * Immutable and thread-safe.
 *
 * @param capacity resource name to quantity, e.g. {@code cpu: 32}
 * @param kubeletVersion what {@code status.nodeInfo.kubeletVersion} reports (not read from the file)
 */
public record SimulatedNodeConfig(
        Map<String, String> capacity,
        Map<String, String> labels,
        List<SimulatedTaint> taints,
        List<String> zones,
        String region,
        String instanceType,
        String namePrefix,
        String nodeAddressCidr,
        Duration podRunDuration,
        int maxConcurrentWrites,
        String kubeletVersion) {
    public static final Map<String, String> DEFAULT_CAPACITY = orderedMap("cpu", "32", "memory", "256Gi", "pods", "110", "ephemeral-storage", "1Ti");
    public static final List<String> DEFAULT_ZONES = List.of("zone-a", "zone-b", "zone-c");
    private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");
    private static final Set<String> FIELDS = Set.of("capacity", "labels", "taints", "zones", "region", "instanceType", "namePrefix",
            "nodeAddressCidr", "podRunSeconds", "maxConcurrentWrites");

    /**
     * A taint every simulated node carries.
     *
     * @param effect {@code NoSchedule}, {@code PreferNoSchedule} or {@code NoExecute}
     */
    public record SimulatedTaint(String key, String value, String effect) {
        public SimulatedTaint {
            requireNonNull(key, "key is null");
            requireNonNull(value, "value is null");
            requireNonNull(effect, "effect is null");
        }
    }

    public SimulatedNodeConfig {
        capacity = Map.copyOf(requireNonNull(capacity, "capacity is null"));
        labels = Map.copyOf(requireNonNull(labels, "labels is null"));
        taints = List.copyOf(requireNonNull(taints, "taints is null"));
        zones = List.copyOf(requireNonNull(zones, "zones is null"));
        requireNonNull(region, "region is null");
        requireNonNull(instanceType, "instanceType is null");
        requireNonNull(namePrefix, "namePrefix is null");
        requireNonNull(nodeAddressCidr, "nodeAddressCidr is null");
        requireNonNull(podRunDuration, "podRunDuration is null");
        requireNonNull(kubeletVersion, "kubeletVersion is null");
        if (podRunDuration.isNegative()) {
            throw new IllegalArgumentException("podRunDuration must not be negative: " + podRunDuration);
        }
        if (maxConcurrentWrites < 1) {
            throw new IllegalArgumentException("maxConcurrentWrites must be positive: " + maxConcurrentWrites);
        }
    }

    /** The defaults: 32 cpu, 256Gi memory, 110 pods, three zones, no taints, pods that end run 3 s. */
    public static SimulatedNodeConfig defaults(String kubeletVersion) {
        return new SimulatedNodeConfig(DEFAULT_CAPACITY, Map.of(), List.of(), DEFAULT_ZONES, "k4j", "k4j-simulated", "k4j-sim-",
                "10.40.0.0/16", Duration.ofSeconds(3), 32, kubeletVersion);
    }

    /**
     * Reads a config file over the defaults.
     *
     * @throws IllegalArgumentException naming the file and the field when the file is invalid
     */
    public static SimulatedNodeConfig load(Path file, String kubeletVersion) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + ": not valid YAML: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read the simulated node config", e);
        }
        try {
            return parse(root, kubeletVersion);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    static SimulatedNodeConfig parse(JsonNode root, String kubeletVersion) {
        SimulatedNodeConfig defaults = defaults(kubeletVersion);
        if (root == null || root.isNull() || root.isMissingNode()) {
            return defaults;
        }
        if (!root.isObject()) {
            throw new IllegalArgumentException("the simulated node config must be a mapping");
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException("unknown field \"" + name + "\"; known fields: " + FIELDS.stream().sorted().toList());
            }
        }
        Map<String, String> capacity = new LinkedHashMap<>(defaults.capacity());
        for (Map.Entry<String, String> entry : stringMap(root, "capacity").entrySet()) {
            try {
                Quantity.parse(entry.getValue());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("capacity." + entry.getKey() + ": not a quantity: \"" + entry.getValue() + "\"");
            }
            capacity.put(entry.getKey(), entry.getValue());
        }
        List<SimulatedTaint> taints = new ArrayList<>();
        JsonNode taintList = root.path("taints");
        if (!taintList.isMissingNode() && !taintList.isNull()) {
            if (!taintList.isArray()) {
                throw new IllegalArgumentException("taints: must be a list");
            }
            for (int index = 0; index < taintList.size(); index++) {
                JsonNode taint = taintList.get(index);
                String effect = taint.path("effect").asText("");
                String key = taint.path("key").asText("");
                if (key.isEmpty()) {
                    throw new IllegalArgumentException("taints[" + index + "].key: required");
                }
                if (!EFFECTS.contains(effect)) {
                    throw new IllegalArgumentException("taints[" + index + "].effect: must be one of NoExecute, NoSchedule, PreferNoSchedule, not \"" + effect + "\"");
                }
                taints.add(new SimulatedTaint(key, taint.path("value").asText(""), effect));
            }
        }
        List<String> zones = root.has("zones") ? stringList(root, "zones") : defaults.zones();
        Duration podRunDuration = defaults.podRunDuration();
        if (root.has("podRunSeconds")) {
            JsonNode seconds = root.get("podRunSeconds");
            if (!seconds.isNumber() || seconds.asDouble() < 0) {
                throw new IllegalArgumentException("podRunSeconds: must be a number of seconds >= 0");
            }
            podRunDuration = Duration.ofMillis(Math.round(seconds.asDouble() * 1000));
        }
        int maxConcurrentWrites = defaults.maxConcurrentWrites();
        if (root.has("maxConcurrentWrites")) {
            JsonNode writes = root.get("maxConcurrentWrites");
            if (!writes.canConvertToInt() || writes.asInt() < 1) {
                throw new IllegalArgumentException("maxConcurrentWrites: must be a positive integer");
            }
            maxConcurrentWrites = writes.asInt();
        }
        String nodeAddressCidr = text(root, "nodeAddressCidr", defaults.nodeAddressCidr());
        try {
            CidrPool.parse(nodeAddressCidr);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("nodeAddressCidr: " + e.getMessage());
        }
        return new SimulatedNodeConfig(capacity, stringMap(root, "labels"), taints, zones, text(root, "region", defaults.region()),
                text(root, "instanceType", defaults.instanceType()), text(root, "namePrefix", defaults.namePrefix()), nodeAddressCidr,
                podRunDuration, maxConcurrentWrites, kubeletVersion);
    }

    private static String text(JsonNode root, String field, String defaultValue) {
        JsonNode value = root.path(field);
        if (value.isMissingNode() || value.isNull()) {
            return defaultValue;
        }
        if (!value.isValueNode()) {
            throw new IllegalArgumentException(field + ": must be a string");
        }
        return value.asText();
    }

    private static Map<String, String> stringMap(JsonNode root, String field) {
        JsonNode value = root.path(field);
        Map<String, String> map = new LinkedHashMap<>();
        if (value.isMissingNode() || value.isNull()) {
            return map;
        }
        if (!value.isObject()) {
            throw new IllegalArgumentException(field + ": must be a mapping");
        }
        value.fields().forEachRemaining(entry -> {
            if (!entry.getValue().isValueNode()) {
                throw new IllegalArgumentException(field + "." + entry.getKey() + ": must be a string");
            }
            map.put(entry.getKey(), entry.getValue().asText());
        });
        return map;
    }

    private static List<String> stringList(JsonNode root, String field) {
        JsonNode value = root.path(field);
        if (!value.isArray()) {
            throw new IllegalArgumentException(field + ": must be a list");
        }
        List<String> list = new ArrayList<>();
        value.forEach(element -> list.add(element.asText()));
        return list;
    }

    private static Map<String, String> orderedMap(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int index = 0; index < keysAndValues.length; index += 2) {
            map.put(keysAndValues[index], keysAndValues[index + 1]);
        }
        return map;
    }
}
