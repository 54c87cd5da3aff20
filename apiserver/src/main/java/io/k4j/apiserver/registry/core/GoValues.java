package io.k4j.apiserver.registry.core;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.codec.GoStrings;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bad values of field errors shown as upstream shows values that are neither strings nor numbers: Go's
 * {@code %#v} rendering of the internal type, e.g. {@code map[string]string{"app":"web"}}. A {@link
 * io.k4j.api.validation.FieldError} prints any such value with {@code toString()}. Stateless and thread-safe.
 */
public final class GoValues {
    private GoValues() {}

    /** A value printed verbatim. */
    public record Rendered(String text) {
        public Rendered {
            requireNonNull(text, "text is null");
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** A Go {@code map[string]string} (labels, selectors); Go prints map keys sorted. */
    public static Rendered stringMap(JsonNode map) {
        Map<String, String> sorted = new TreeMap<>();
        map.properties().forEach(entry -> sorted.put(entry.getKey(), entry.getValue().asText()));
        StringBuilder text = new StringBuilder("map[string]string{");
        int index = 0;
        for (Map.Entry<String, String> entry : sorted.entrySet()) {
            text.append(index++ == 0 ? "" : ", ").append(GoStrings.quote(entry.getKey())).append(':').append(GoStrings.quote(entry.getValue()));
        }
        return new Rendered(text.append('}').toString());
    }

    /** A slice of a string type, e.g. {@code []core.ResourceQuotaScope{"Terminating"}}. */
    public static Rendered stringSlice(String elementType, List<String> values) {
        StringBuilder text = new StringBuilder("[]").append(elementType).append('{');
        for (int index = 0; index < values.size(); index++) {
            text.append(index == 0 ? "" : ", ").append(GoStrings.quote(values.get(index)));
        }
        return new Rendered(text.append('}').toString());
    }
}
