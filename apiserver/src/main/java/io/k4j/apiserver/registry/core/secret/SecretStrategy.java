package io.k4j.apiserver.registry.core.secret;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.core.configmap.ConfigMapStrategy;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The rules of secrets, as upstream's {@code secretStrategy} and {@code ValidateSecret}: {@code stringData} is merged
 * into {@code data} when decoded, data must be base64, keys are config keys, each well-known type requires its keys,
 * the type never changes and an immutable secret keeps its data. Thread-safe.
 */
public final class SecretStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("secrets");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Type", "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
            TableColumn.integer("Data", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"),
            TableColumn.ageColumn());

    private final InstantSource clock;

    public SecretStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode secret) {
        Trees.defaultText(secret, "type", "Opaque");
        for (Map.Entry<String, JsonNode> entry : Trees.at(secret, "data").properties()) {
            int invalidAt = invalidBase64Position(entry.getValue().asText());
            if (invalidAt >= 0) {
                throw StatusException.badRequest("Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte " + invalidAt);
            }
        }
        // The v1 conversion writes stringData over data and never stores stringData itself.
        JsonNode stringData = secret.get("stringData");
        if (stringData != null && stringData.isObject()) {
            ObjectNode data = Trees.object(secret, "data");
            stringData.properties().forEach(entry -> data.put(entry.getKey(),
                    Base64.getEncoder().encodeToString(entry.getValue().asText().getBytes(StandardCharsets.UTF_8))));
        }
        secret.remove("stringData");
    }

    /** The position Go's decoder reports for invalid base64, or -1 when valid. */
    static int invalidBase64Position(String value) {
        int padding = 0;
        for (int index = 0; index < value.length(); index++) {
            char character = value.charAt(index);
            boolean alphabet = (character >= 'A' && character <= 'Z') || (character >= 'a' && character <= 'z') || (character >= '0' && character <= '9')
                    || character == '+' || character == '/';
            if (character == '=') {
                padding++;
                if (padding > 2 || index % 4 < 2) {
                    return index;
                }
            } else if (!alphabet || padding > 0) {
                return index;
            }
        }
        if (value.length() % 4 != 0) {
            return value.length() - value.length() % 4;
        }
        return -1;
    }

    @Override
    public void prepareForCreate(ObjectNode secret) {}

    @Override
    public void prepareForUpdate(ObjectNode newSecret, ObjectNode oldSecret) {}

    @Override
    public FieldErrors validate(ObjectNode secret) {
        FieldErrors errors = new FieldErrors();
        JsonNode data = Trees.at(secret, "data");
        long totalSize = 0;
        for (Map.Entry<String, JsonNode> entry : data.properties()) {
            NameValidation.isConfigMapKey(entry.getKey()).forEach(message -> errors.add(FieldError.invalid("data[" + entry.getKey() + "]", entry.getKey(), message)));
            totalSize += decoded(entry.getValue()).length;
        }
        if (totalSize > ConfigMapStrategy.MAX_SIZE) {
            errors.add(FieldError.tooLong("data", "", ConfigMapStrategy.MAX_SIZE));
        }
        switch (Trees.text(secret, "type")) {
            case "kubernetes.io/service-account-token" -> {
                if (Trees.text(secret, "metadata", "annotations", "kubernetes.io/service-account.name").isEmpty()) {
                    errors.add(FieldError.required("metadata.annotations[kubernetes.io/service-account.name]", ""));
                }
            }
            case "kubernetes.io/dockercfg" -> requireJson(data, ".dockercfg", errors);
            case "kubernetes.io/dockerconfigjson" -> requireJson(data, ".dockerconfigjson", errors);
            case "kubernetes.io/basic-auth" -> {
                if (!data.has("username") && !data.has("password")) {
                    errors.add(FieldError.required("data[username]", ""));
                    errors.add(FieldError.required("data[password]", ""));
                }
            }
            case "kubernetes.io/ssh-auth" -> {
                if (decoded(data.get("ssh-privatekey")).length == 0) {
                    errors.add(FieldError.required("data[ssh-privatekey]", ""));
                }
            }
            case "kubernetes.io/tls" -> {
                if (!data.has("tls.crt")) {
                    errors.add(FieldError.required("data[tls.crt]", ""));
                }
                if (!data.has("tls.key")) {
                    errors.add(FieldError.required("data[tls.key]", ""));
                }
            }
            default -> {
                // Opaque and custom types carry any data.
            }
        }
        return errors;
    }

    private static void requireJson(JsonNode data, String key, FieldErrors errors) {
        if (!data.has(key)) {
            errors.add(FieldError.required("data[" + key + "]", ""));
            return;
        }
        try {
            JsonNode parsed = new com.fasterxml.jackson.databind.ObjectMapper().readTree(decoded(data.get(key)));
            if (parsed == null || !parsed.isObject()) {
                errors.add(FieldError.invalid("data[" + key + "]", "<secret contents redacted>", "json: cannot unmarshal into Go value of type map[string]interface {}"));
            }
        } catch (java.io.IOException e) {
            errors.add(FieldError.invalid("data[" + key + "]", "<secret contents redacted>", "invalid character in JSON"));
        }
    }

    private static byte[] decoded(JsonNode value) {
        if (value == null || !value.isTextual()) {
            return new byte[0];
        }
        try {
            return Base64.getDecoder().decode(value.asText());
        } catch (IllegalArgumentException e) {
            return value.asText().getBytes(StandardCharsets.UTF_8);
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newSecret, ObjectNode oldSecret) {
        FieldErrors errors = new FieldErrors();
        Updates.immutable(newSecret.get("type"), oldSecret.get("type"), "type", errors);
        if (Trees.bool(oldSecret, "immutable")) {
            if (!Trees.bool(newSecret, "immutable")) {
                errors.add(FieldError.forbidden("immutable", "field is immutable when `immutable` is set"));
            }
            if (!Trees.sameValue(Trees.emptyAsAbsent(newSecret.get("data")), Trees.emptyAsAbsent(oldSecret.get("data")))) {
                errors.add(FieldError.forbidden("data", "field is immutable when `immutable` is set"));
            }
        }
        return errors.addAll(validate(newSecret));
    }

    @Override
    public Map<String, String> selectableFields(ObjectNode secret) {
        return Map.of("type", Trees.text(secret, "type"));
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode secret) {
        return List.of(
                Trees.text(secret, "metadata", "name"),
                Trees.text(secret, "type"),
                (long) Trees.size(secret, "data"),
                Printing.since(Trees.at(secret, "metadata", "creationTimestamp"), clock.instant()));
    }
}
