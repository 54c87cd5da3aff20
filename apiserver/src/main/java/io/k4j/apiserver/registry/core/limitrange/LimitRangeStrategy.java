package io.k4j.apiserver.registry.core.limitrange;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.ResourceNames;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules of limit ranges, as upstream's {@code SetDefaults_LimitRangeItem} and {@code ValidateLimitRange}: a
 * container item's default limit falls back to max and its default request to the default limit, then to min; the
 * type is a standard one, every quantity parses, and per resource min <= default request <= default limit <= max.
 * Thread-safe.
 */
public final class LimitRangeStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("limitranges");
    private static final List<String> TYPES = List.of("Container", "PersistentVolumeClaim", "Pod");
    private static final Quantity ONE = Quantity.of(1, Quantity.Format.DECIMAL_SI);
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            new TableColumn("Created At", "date", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0));

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode limitRange) {
        for (ObjectNode item : Trees.objects(limitRange, "spec", "limits")) {
            if (!Trees.text(item, "type").equals("Container")) {
                continue;
            }
            fill(item, "max", "default");
            fill(item, "default", "defaultRequest");
            fill(item, "min", "defaultRequest");
        }
    }

    /** Copies each quantity of {@code from} that {@code to} lacks; creates {@code to} only when something is copied. */
    private static void fill(ObjectNode item, String from, String to) {
        for (Map.Entry<String, JsonNode> entry : Trees.at(item, from).properties()) {
            ObjectNode target = Trees.object(item, to);
            if (!target.has(entry.getKey())) {
                target.set(entry.getKey(), entry.getValue().deepCopy());
            }
        }
    }

    @Override
    public void prepareForCreate(ObjectNode limitRange) {}

    @Override
    public void prepareForUpdate(ObjectNode newLimitRange, ObjectNode oldLimitRange) {}

    @Override
    public FieldErrors validate(ObjectNode limitRange) {
        FieldErrors errors = new FieldErrors();
        Set<String> types = new HashSet<>();
        List<JsonNode> items = Trees.elements(limitRange, "spec", "limits");
        for (int index = 0; index < items.size(); index++) {
            JsonNode item = items.get(index);
            String path = "spec.limits[" + index + "]";
            String type = Trees.text(item, "type");
            validateTypeName(type, path + ".type", errors);
            if (!types.add(type)) {
                errors.add(FieldError.duplicate(path + ".type", type));
            }
            Set<String> keys = new TreeSet<>();
            Map<String, Quantity> max = quantities(item, "max", type, path, keys, errors);
            Map<String, Quantity> min = quantities(item, "min", type, path, keys, errors);
            Map<String, Quantity> defaults = Map.of();
            Map<String, Quantity> defaultRequests = Map.of();
            if (type.equals("Pod")) {
                if (Trees.size(item, "default") > 0) {
                    errors.add(FieldError.forbidden(path + ".default", "may not be specified when `type` is 'Pod'"));
                }
                if (Trees.size(item, "defaultRequest") > 0) {
                    errors.add(FieldError.forbidden(path + ".defaultRequest", "may not be specified when `type` is 'Pod'"));
                }
            } else {
                defaults = quantities(item, "default", type, path, keys, errors);
                defaultRequests = quantities(item, "defaultRequest", type, path, keys, errors);
            }
            if (type.equals("PersistentVolumeClaim") && !Trees.has(item, "min", "storage") && !Trees.has(item, "max", "storage")) {
                errors.add(FieldError.required(path + ".limits", "either minimum or maximum storage value is required, but neither was provided"));
            }
            Map<String, Quantity> ratios = quantities(item, "maxLimitRequestRatio", type, path, keys, errors);
            for (String key : keys) {
                validateOrdering(key, path, min.get(key), max.get(key), defaults.get(key), defaultRequests.get(key), ratios.get(key), errors);
            }
        }
        return errors;
    }

    /** The valid quantities of one map of an item, keyed by resource name; adds the names to {@code keys}. */
    private static Map<String, Quantity> quantities(JsonNode item, String field, String type, String path, Set<String> keys, FieldErrors errors) {
        Map<String, Quantity> result = new HashMap<>();
        for (Map.Entry<String, JsonNode> entry : Trees.at(item, field).properties()) {
            String itemPath = path + "." + field + "[" + entry.getKey() + "]";
            validateResourceName(type, entry.getKey(), itemPath, errors);
            keys.add(entry.getKey());
            Optional<Quantity> quantity = Trees.quantity(entry.getValue());
            if (quantity.isEmpty()) {
                errors.add(FieldError.invalid(itemPath, entry.getValue().asText(), "must be a valid quantity"));
            } else {
                result.put(entry.getKey(), quantity.get());
            }
        }
        return result;
    }

    /** Upstream's ordering rules: min <= defaultRequest <= default <= max, and a sensible max limit/request ratio. */
    private static void validateOrdering(String key, String path, Quantity min, Quantity max, Quantity defaultLimit, Quantity defaultRequest, Quantity ratio,
            FieldErrors errors) {
        if (min != null && max != null && min.compareTo(max) > 0) {
            errors.add(FieldError.invalid(path + ".min[" + key + "]", min.toString(), "min value " + min + " is greater than max value " + max));
        }
        if (defaultRequest != null && min != null && min.compareTo(defaultRequest) > 0) {
            errors.add(FieldError.invalid(path + ".defaultRequest[" + key + "]", defaultRequest.toString(),
                    "min value " + min + " is greater than default request value " + defaultRequest));
        }
        if (defaultRequest != null && max != null && defaultRequest.compareTo(max) > 0) {
            errors.add(FieldError.invalid(path + ".defaultRequest[" + key + "]", defaultRequest.toString(),
                    "default request value " + defaultRequest + " is greater than max value " + max));
        }
        if (defaultRequest != null && defaultLimit != null && defaultRequest.compareTo(defaultLimit) > 0) {
            errors.add(FieldError.invalid(path + ".defaultRequest[" + key + "]", defaultRequest.toString(),
                    "default request value " + defaultRequest + " is greater than default limit value " + defaultLimit));
        }
        if (defaultLimit != null && min != null && min.compareTo(defaultLimit) > 0) {
            errors.add(FieldError.invalid(path + ".default[" + key + "]", min.toString(), "min value " + min + " is greater than default value " + defaultLimit));
        }
        if (defaultLimit != null && max != null && defaultLimit.compareTo(max) > 0) {
            errors.add(FieldError.invalid(path + ".default[" + key + "]", max.toString(), "default value " + defaultLimit + " is greater than max value " + max));
        }
        if (ratio != null && ratio.compareTo(ONE) < 0) {
            errors.add(FieldError.invalid(path + ".maxLimitRequestRatio[" + key + "]", ratio.toString(), "ratio " + ratio + " is less than 1"));
        }
        if (ratio != null && min != null && max != null && min.signum() > 0) {
            BigDecimal limit = max.toBigDecimal().divide(min.toBigDecimal(), MathContext.DECIMAL64);
            if (ratio.toBigDecimal().compareTo(limit) > 0) {
                errors.add(FieldError.invalid(path + ".maxLimitRequestRatio[" + key + "]", ratio.toString(),
                        "ratio " + ratio + " is greater than max/min = " + String.format(Locale.ROOT, "%f", limit.doubleValue())));
            }
        }
        if (!ResourceNames.isOvercommitAllowed(key) && defaultLimit != null && defaultRequest != null
                && defaultLimit.compareTo(defaultRequest) != 0) {
            errors.add(FieldError.invalid(path + ".defaultRequest[" + key + "]", defaultRequest.toString(),
                    "default value " + defaultLimit + " must equal to defaultRequest value " + defaultRequest + " in " + key));
        }
    }

    /** Upstream's {@code validateLimitRangeTypeName}: a qualified name, and one of the standard types unless prefixed. */
    private static void validateTypeName(String type, String path, FieldErrors errors) {
        List<String> problems = NameValidation.isQualifiedName(type);
        problems.forEach(message -> errors.add(FieldError.invalid(path, type, message)));
        if (problems.isEmpty() && !type.contains("/") && !TYPES.contains(type)) {
            errors.add(FieldError.invalid(path, type, "must be a standard limit type or fully qualified"));
        }
    }

    /** Upstream's {@code validateLimitRangeResourceName}: pods and containers take container resources. */
    private static void validateResourceName(String type, String name, String path, FieldErrors errors) {
        boolean container = type.equals("Pod") || type.equals("Container");
        errors.addAll(container ? ResourceNames.validateContainerResourceName(name, path) : ResourceNames.validateResourceName(name, path));
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newLimitRange, ObjectNode oldLimitRange) {
        return validate(newLimitRange);
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode limitRange) {
        // Upstream prints the timestamp itself, which serializes as RFC 3339.
        return List.of(Trees.text(limitRange, "metadata", "name"), Trees.text(limitRange, "metadata", "creationTimestamp"));
    }
}
