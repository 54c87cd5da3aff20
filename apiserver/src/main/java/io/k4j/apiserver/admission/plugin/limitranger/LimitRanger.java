package io.k4j.apiserver.admission.plugin.limitranger;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.MutatingAdmissionPlugin;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import io.k4j.apiserver.registry.generic.Registry;
import io.k4j.api.resource.GroupVersionResource;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Applies the LimitRanges of a namespace: fills containers' missing requests and limits from the
 * {@code Container} items' {@code defaultRequest} and {@code default}, then checks min, max and
 * maxLimitRequestRatio for containers, pods and persistent volume claims. Pod updates are left alone because
 * containers' resources cannot change on update. Thread-safe.
 */
public final class LimitRanger implements MutatingAdmissionPlugin, ValidatingAdmissionPlugin {
    public static final String NAME = "LimitRanger";
    public static final String ANNOTATION = "kubernetes.io/limit-ranger";
    private static final GroupVersionResource CLAIMS = new GroupVersionResource("", "v1", "persistentvolumeclaims");

    private final Registry registry;

    public LimitRanger(Registry registry) {
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

    private boolean applies(AdmissionAttributes attributes) {
        if (!attributes.subresource().isEmpty() || attributes.object() == null) {
            return false;
        }
        if (Resources.isResource(attributes, Resources.PODS)) {
            return attributes.operation() == Operation.CREATE;
        }
        return Resources.isResource(attributes, CLAIMS);
    }

    private List<ObjectNode> limitRanges(String namespace) {
        return registry.store(Resources.LIMIT_RANGES).map(store -> store.list(namespace)).orElse(List.of());
    }

    @Override
    public void admit(AdmissionAttributes attributes) {
        if (!applies(attributes) || !Resources.isResource(attributes, Resources.PODS)) {
            return;
        }
        List<String> applied = new ArrayList<>();
        for (ObjectNode limitRange : limitRanges(attributes.namespace())) {
            for (JsonNode item : limitRange.path("spec").path("limits")) {
                if (!"Container".equals(item.path("type").asText())) {
                    continue;
                }
                for (String list : List.of("initContainers", "containers")) {
                    for (JsonNode container : attributes.object().path("spec").path(list)) {
                        if (container instanceof ObjectNode containerObject) {
                            ObjectNode resources = containerObject.with("resources");
                            fillMissing(resources, "limits", item.path("default"), "limit", containerObject.path("name").asText(), applied);
                            fillMissing(resources, "requests", item.path("defaultRequest"), "request", containerObject.path("name").asText(), applied);
                        }
                    }
                }
            }
        }
        if (!applied.isEmpty()) {
            attributes.object().with("metadata").with("annotations").put(ANNOTATION, "LimitRanger plugin set: " + String.join("; ", applied));
        }
    }

    private static void fillMissing(ObjectNode resources, String kind, JsonNode defaults, String word, String container, List<String> applied) {
        for (Iterator<Map.Entry<String, JsonNode>> fields = defaults.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = fields.next();
            ObjectNode target = resources.with(kind);
            if (!target.has(entry.getKey())) {
                target.set(entry.getKey(), entry.getValue().deepCopy());
                applied.add(entry.getKey() + " " + word + " for container " + container);
            }
        }
    }

    @Override
    public void validate(AdmissionAttributes attributes) {
        if (!applies(attributes)) {
            return;
        }
        List<String> errors = new ArrayList<>();
        boolean pod = Resources.isResource(attributes, Resources.PODS);
        for (ObjectNode limitRange : limitRanges(attributes.namespace())) {
            for (JsonNode item : limitRange.path("spec").path("limits")) {
                String type = item.path("type").asText();
                if (pod && type.equals("Container")) {
                    for (String list : List.of("initContainers", "containers")) {
                        for (JsonNode container : attributes.object().path("spec").path(list)) {
                            checkItem(item, type, quantities(container.path("resources").path("requests")), quantities(container.path("resources").path("limits")), errors);
                        }
                    }
                } else if (pod && type.equals("Pod")) {
                    checkItem(item, type, podTotals(attributes.object(), "requests"), podTotals(attributes.object(), "limits"), errors);
                } else if (!pod && type.equals("PersistentVolumeClaim")) {
                    Map<String, Quantity> requests = quantities(attributes.object().path("spec").path("resources").path("requests"));
                    quantities(item.path("min")).forEach((resource, minimum) -> minimum(type, resource, minimum, requests, errors));
                    quantities(item.path("max")).forEach((resource, maximum) -> {
                        Quantity requested = requests.get(resource);
                        if (requested == null) {
                            errors.add("maximum " + resource + " usage per " + type + " is " + maximum + ".  No request is specified");
                        } else if (requested.compareTo(maximum) > 0) {
                            errors.add("maximum " + resource + " usage per " + type + " is " + maximum + ", but request is " + requested);
                        }
                    });
                }
            }
        }
        if (!errors.isEmpty()) {
            throw Resources.forbidden(attributes, errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
        }
    }

    private static void checkItem(JsonNode item, String type, Map<String, Quantity> requests, Map<String, Quantity> limits, List<String> errors) {
        quantities(item.path("min")).forEach((resource, minimum) -> minimum(type, resource, minimum, requests, errors));
        quantities(item.path("max")).forEach((resource, maximum) -> {
            Quantity limit = limits.get(resource);
            if (limit == null) {
                errors.add("maximum " + resource + " usage per " + type + " is " + maximum + ".  No limit is specified");
            } else if (limit.compareTo(maximum) > 0) {
                errors.add("maximum " + resource + " usage per " + type + " is " + maximum + ", but limit is " + limit);
            }
        });
        quantities(item.path("maxLimitRequestRatio")).forEach((resource, ratio) -> {
            Quantity request = requests.get(resource);
            Quantity limit = limits.get(resource);
            if (limit == null) {
                return;
            }
            if (request == null || request.isZero()) {
                errors.add(resource + " max limit to request ratio per " + type + " is " + ratio + ", but no request is specified or request is 0");
                return;
            }
            BigDecimal observed = limit.toBigDecimal().divide(request.toBigDecimal(), 6, RoundingMode.HALF_UP);
            if (observed.compareTo(ratio.toBigDecimal()) > 0) {
                errors.add(resource + " max limit to request ratio per " + type + " is " + ratio + ", but provided ratio is "
                        + String.format(Locale.ROOT, "%f", observed.doubleValue()));
            }
        });
    }

    private static void minimum(String type, String resource, Quantity minimum, Map<String, Quantity> requests, List<String> errors) {
        Quantity request = requests.get(resource);
        if (request == null) {
            errors.add("minimum " + resource + " usage per " + type + " is " + minimum + ".  No request is specified");
        } else if (request.compareTo(minimum) < 0) {
            errors.add("minimum " + resource + " usage per " + type + " is " + minimum + ", but request is " + request);
        }
    }

    /** A pod's effective requests or limits: containers summed, compared with each init container. */
    private static Map<String, Quantity> podTotals(JsonNode pod, String kind) {
        Map<String, Quantity> sum = new TreeMap<>();
        for (JsonNode container : pod.path("spec").path("containers")) {
            quantities(container.path("resources").path(kind)).forEach((resource, value) -> sum.merge(resource, value, Quantity::add));
        }
        for (JsonNode container : pod.path("spec").path("initContainers")) {
            quantities(container.path("resources").path(kind)).forEach((resource, value) -> {
                Optional<Quantity> current = Optional.ofNullable(sum.get(resource));
                if (current.isEmpty() || value.compareTo(current.get()) > 0) {
                    sum.put(resource, value);
                }
            });
        }
        return sum;
    }

    private static Map<String, Quantity> quantities(JsonNode node) {
        Map<String, Quantity> result = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            result.put(field.getKey(), Quantity.fromJson(field.getValue()));
        }
        return result;
    }
}
