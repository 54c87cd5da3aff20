package io.k4j.apiserver.admission.plugin.resourcequota;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.quota.QuotaScopes;
import io.k4j.api.quota.QuotaUsage;
import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Enforces the ResourceQuotas of a namespace on every create (and on updates that grow usage): a request that
 * would take a quota's usage past its hard limit is rejected with upstream's "exceeded quota" message, and an
 * accepted one is charged to the quota's {@code status.used} before the object is stored.
 *
 * <p>A quota whose {@code status.hard} does not match {@code spec.hard} (new or edited) has its usage recounted
 * from the objects in the namespace first; the quota controller keeps usage exact afterwards (releasing what
 * deleted objects used). Thread-safe: charges are compare-and-swap updates of the quota's status.
 */
public final class ResourceQuota implements ValidatingAdmissionPlugin {
    public static final String NAME = "ResourceQuota";

    private final Registry registry;

    public ResourceQuota(Registry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Operation operation) {
        return operation == Operation.CREATE || operation == Operation.UPDATE;
    }

    @Override
    public void validate(AdmissionAttributes attributes) {
        if (attributes.namespace().isEmpty() || !attributes.subresource().isEmpty() || attributes.object() == null) {
            return;
        }
        Optional<ObjectStore> quotaStore = registry.store(Resources.RESOURCE_QUOTAS);
        if (quotaStore.isEmpty()) {
            return;
        }
        // As upstream: a namespace without quotas has nothing to check, so its objects' usage is not computed.
        List<ObjectNode> quotas = quotaStore.get().list(attributes.namespace());
        if (quotas.isEmpty()) {
            return;
        }
        GroupVersionResource resource = BuiltinResources.storageResource(attributes.type());
        Map<String, Quantity> delta = QuotaUsage.of(resource.group(), resource.resource(), attributes.object());
        if (attributes.operation() == Operation.UPDATE) {
            if (attributes.oldObject() == null) {
                return;
            }
            Map<String, Quantity> old = QuotaUsage.of(resource.group(), resource.resource(), attributes.oldObject());
            delta.replaceAll((name, value) -> value.subtract(old.getOrDefault(name, Quantity.ZERO)));
            delta.values().removeIf(value -> value.signum() <= 0);
        }
        if (delta.isEmpty()) {
            return;
        }
        for (ObjectNode quota : quotas) {
            if (!QuotaScopes.matches(quota, resource.group(), resource.resource(), attributes.object())) {
                continue;
            }
            Map<String, Quantity> hard = quantities(quota.path("spec").path("hard"));
            Map<String, Quantity> requested = new TreeMap<>(delta);
            requested.keySet().retainAll(hard.keySet());
            if (resource.group().isEmpty() && resource.resource().equals("pods") && attributes.operation() == Operation.CREATE) {
                Map<String, List<String>> missing = QuotaUsage.missingComputeConstraints(attributes.object(), hard.keySet());
                if (!missing.isEmpty()) {
                    throw Resources.forbidden(attributes, "failed quota: " + name(quota) + ": must specify "
                            + missing.entrySet().stream()
                                    .map(entry -> entry.getKey() + " for: " + String.join(",", entry.getValue()))
                                    .collect(Collectors.joining("; ")));
                }
            }
            if (requested.isEmpty()) {
                continue;
            }
            if (attributes.dryRun()) {
                check(attributes, quota, usedFor(quota, hard, attributes.namespace()), hard, requested);
            } else {
                charge(attributes, quota, hard, requested);
            }
        }
    }

    /** Adds {@code requested} to the quota's usage, re-checking against the freshest usage on every retry. */
    private void charge(AdmissionAttributes attributes, ObjectNode quota, Map<String, Quantity> hard, Map<String, Quantity> requested) {
        registry.require(Resources.RESOURCE_QUOTAS).guaranteedUpdate(attributes.namespace(), name(quota), "status", current -> {
            Map<String, Quantity> currentHard = quantities(current.path("spec").path("hard"));
            Map<String, Quantity> used = usedFor(current, currentHard, attributes.namespace());
            Map<String, Quantity> masked = new TreeMap<>(requested);
            masked.keySet().retainAll(currentHard.keySet());
            check(attributes, current, used, currentHard, masked);
            masked.forEach((name, value) -> used.merge(name, value, Quantity::add));
            ObjectNode status = current.with("status");
            status.set("hard", current.path("spec").path("hard").deepCopy());
            ObjectNode usedNode = status.putObject("used");
            used.forEach((name, value) -> usedNode.put(name, value.toString()));
            return current;
        });
    }

    private static void check(AdmissionAttributes attributes, ObjectNode quota, Map<String, Quantity> used, Map<String, Quantity> hard, Map<String, Quantity> requested) {
        List<String> exceeded = new ArrayList<>();
        for (Map.Entry<String, Quantity> entry : requested.entrySet()) {
            Quantity newUsage = used.getOrDefault(entry.getKey(), Quantity.ZERO).add(entry.getValue());
            if (newUsage.compareTo(hard.get(entry.getKey())) > 0) {
                exceeded.add(entry.getKey());
            }
        }
        if (!exceeded.isEmpty()) {
            throw Resources.forbidden(attributes, "exceeded quota: " + name(quota)
                    + ", requested: " + prettyPrint(requested, exceeded)
                    + ", used: " + prettyPrint(used, exceeded)
                    + ", limited: " + prettyPrint(hard, exceeded));
        }
    }

    /** The quota's current usage; recounted from the namespace's objects when its status is not yet in step with its spec. */
    private Map<String, Quantity> usedFor(ObjectNode quota, Map<String, Quantity> hard, String namespace) {
        Map<String, Quantity> statusHard = quantities(quota.path("status").path("hard"));
        if (statusHard.equals(hard)) {
            return quantities(quota.path("status").path("used"));
        }
        return recount(quota, hard, namespace);
    }

    private Map<String, Quantity> recount(ObjectNode quota, Map<String, Quantity> hard, String namespace) {
        Map<String, Quantity> used = new TreeMap<>();
        hard.keySet().forEach(name -> used.put(name, Quantity.ZERO));
        for (ResourceType type : countedTypes(hard)) {
            Optional<ObjectStore> store = registry.store(type.gvr());
            if (store.isEmpty()) {
                continue;
            }
            for (ObjectNode object : store.get().list(namespace)) {
                if (!QuotaScopes.matches(quota, type.gvr().group(), type.gvr().resource(), object)) {
                    continue;
                }
                QuotaUsage.of(type.gvr().group(), type.gvr().resource(), object).forEach((name, value) -> {
                    if (used.containsKey(name)) {
                        used.merge(name, value, Quantity::add);
                    }
                });
            }
        }
        return used;
    }

    /** The resource types whose objects contribute to any of the quota's resource names. */
    private static List<ResourceType> countedTypes(Map<String, Quantity> hard) {
        Map<GroupVersionResource, ResourceType> types = new LinkedHashMap<>();
        for (ResourceType type : BuiltinResources.all()) {
            GroupVersionResource storage = BuiltinResources.storageResource(type);
            if (!storage.equals(type.gvr()) || !type.namespaced()) {
                continue;
            }
            boolean counted = hard.containsKey(QuotaUsage.countName(type.gvr().group(), type.gvr().resource()))
                    || (type.gvr().group().isEmpty() && hard.containsKey(type.plural()))
                    || (type.gvr().group().isEmpty() && type.plural().equals("pods") && hard.keySet().stream().anyMatch(ResourceQuota::isCompute))
                    || (type.gvr().group().isEmpty() && type.plural().equals("persistentvolumeclaims") && hard.keySet().stream().anyMatch(name -> name.contains("storage")))
                    || (type.gvr().group().isEmpty() && type.plural().equals("services") && hard.keySet().stream().anyMatch(name -> name.startsWith("services.")));
            if (counted) {
                types.putIfAbsent(type.gvr(), type);
            }
        }
        return List.copyOf(types.values());
    }

    private static boolean isCompute(String name) {
        return name.equals("cpu") || name.equals("memory") || name.startsWith("requests.") || name.startsWith("limits.");
    }

    private static Map<String, Quantity> quantities(JsonNode node) {
        Map<String, Quantity> result = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            result.put(field.getKey(), Quantity.fromJson(field.getValue()));
        }
        return result;
    }

    /** Upstream's prettyPrint: sorted {@code name=value} pairs joined by commas. */
    private static String prettyPrint(Map<String, Quantity> values, List<String> names) {
        return names.stream().sorted()
                .map(name -> name + "=" + values.getOrDefault(name, Quantity.ZERO))
                .collect(Collectors.joining(","));
    }

    private static String name(JsonNode quota) {
        return quota.path("metadata").path("name").asText();
    }
}
