package io.k4j.apiserver.registry.core.limitrange;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.quantity.Quantity;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rules of limit ranges, as upstream's {@code SetDefaults_LimitRangeItem} and {@code ValidateLimitRange}: a
 * container item's default limit falls back to max and its default request to the default limit, then to min; the
 * type is required and every quantity must parse. Thread-safe.
 */
public final class LimitRangeStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("limitranges");
    private static final List<String> TYPES = List.of("Container", "PersistentVolumeClaim", "Pod");
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
        List<JsonNode> items = Trees.elements(limitRange, "spec", "limits");
        for (int index = 0; index < items.size(); index++) {
            JsonNode item = items.get(index);
            String path = "spec.limits[" + index + "]";
            String type = Trees.text(item, "type");
            if (type.isEmpty()) {
                errors.add(FieldError.required(path + ".type", ""));
            } else if (!TYPES.contains(type)) {
                errors.add(FieldError.notSupported(path + ".type", type, TYPES));
            }
            for (String field : List.of("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")) {
                for (Map.Entry<String, JsonNode> entry : Trees.at(item, field).properties()) {
                    String value = entry.getValue().asText();
                    Optional<Quantity> quantity = Trees.quantity(entry.getValue());
                    if (quantity.isEmpty()) {
                        errors.add(FieldError.invalid(path + "." + field + "[" + entry.getKey() + "]", value, "must be a valid quantity"));
                    } else if (quantity.get().signum() < 0) {
                        errors.add(FieldError.invalid(path + "." + field + "[" + entry.getKey() + "]", value, "must be greater than or equal to 0"));
                    }
                }
            }
            if (type.equals("Pod") && (Trees.has(item, "default") || Trees.has(item, "defaultRequest"))) {
                String field = Trees.has(item, "default") ? "default" : "defaultRequest";
                errors.add(FieldError.forbidden(path + "." + field, "may not be specified when `type` is 'Pod'"));
            }
            for (Map.Entry<String, JsonNode> min : Trees.at(item, "min").properties()) {
                JsonNode max = Trees.at(item, "max", min.getKey());
                if (max.isTextual() && compare(min.getValue().asText(), max.asText()) > 0) {
                    errors.add(FieldError.invalid(path + ".min[" + min.getKey() + "]", min.getValue().asText(),
                            "min value " + min.getValue().asText() + " is greater than max value " + max.asText()));
                }
            }
        }
        return errors;
    }

    private static int compare(String left, String right) {
        return Trees.quantity(com.fasterxml.jackson.databind.node.TextNode.valueOf(left))
                .flatMap(l -> Trees.quantity(com.fasterxml.jackson.databind.node.TextNode.valueOf(right)).map(l::compareTo)).orElse(0);
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
