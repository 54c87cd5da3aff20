package io.k4j.api.protobuf;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.Descriptors.FieldDescriptor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * How upstream's Go types turn protobuf fields into JSON where the protobuf schema alone cannot say: which
 * scalars are pointers, which have no {@code omitempty}, which structs are embedded inline, and the few JSON
 * names that differ from the protobuf names. Read from {@code go-json-fields.txt} beside this class.
 *
 * <p>Immutable and thread-safe.
 */
final class GoJsonRules {
    /** When a scalar field appears in the JSON. */
    enum Presence {
        /** A non-pointer Go field with {@code omitempty}: only when set to something other than the zero value. */
        OMIT_EMPTY,
        /** A pointer in Go: whenever it is on the wire, zero values included. */
        POINTER,
        /**
         * A Go field without {@code omitempty}: always; a scalar absent on the wire with its zero value, an absent
         * slice, map or pointer as {@code null}.
         */
        ALWAYS
    }

    static final String RESOURCE = "go-json-fields.txt";
    private static final String NAME_PREFIX = "k8s.io.";

    private final Map<String, Presence> presences;
    private final Set<String> inlineFields;
    private final Map<String, String> jsonNames;

    private GoJsonRules(Map<String, Presence> presences, Set<String> inlineFields, Map<String, String> jsonNames) {
        this.presences = Map.copyOf(presences);
        this.inlineFields = Set.copyOf(inlineFields);
        this.jsonNames = Map.copyOf(jsonNames);
    }

    static GoJsonRules load() {
        try (InputStream input = GoJsonRules.class.getResourceAsStream(RESOURCE)) {
            if (input == null) {
                throw new IllegalStateException("missing resource " + RESOURCE);
            }
            return parse(new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8)));
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    static GoJsonRules parse(BufferedReader reader) throws IOException {
        Map<String, Presence> presences = new HashMap<>();
        Set<String> inlineFields = new HashSet<>();
        Map<String, String> jsonNames = new HashMap<>();
        String line;
        int lineNumber = 0;
        while ((line = reader.readLine()) != null) {
            lineNumber++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] words = trimmed.split("\\s+");
            if (words.length < 2) {
                throw new IllegalStateException(RESOURCE + ":" + lineNumber + ": a message needs at least one field");
            }
            String message = NAME_PREFIX + words[0];
            for (int i = 1; i < words.length; i++) {
                String word = words[i];
                char marker = word.charAt(0);
                switch (marker) {
                    case '*' -> put(presences, message, word.substring(1), Presence.POINTER, lineNumber);
                    case '!' -> put(presences, message, word.substring(1), Presence.ALWAYS, lineNumber);
                    case '^' -> inlineFields.add(key(message, word.substring(1)));
                    default -> {
                        int equals = word.indexOf('=');
                        if (equals <= 0 || equals == word.length() - 1) {
                            throw new IllegalStateException(RESOURCE + ":" + lineNumber + ": cannot read " + word);
                        }
                        jsonNames.put(key(message, word.substring(0, equals)), word.substring(equals + 1));
                    }
                }
            }
        }
        return new GoJsonRules(presences, inlineFields, jsonNames);
    }

    private static void put(Map<String, Presence> presences, String message, String field, Presence presence, int lineNumber) {
        if (presences.put(key(message, field), presence) != null) {
            throw new IllegalStateException(RESOURCE + ":" + lineNumber + ": " + message + "." + field + " is listed twice");
        }
    }

    private static String key(String message, String field) {
        return message + "#" + field;
    }

    private static String key(FieldDescriptor field) {
        return key(field.getContainingType().getFullName(), field.getName());
    }

    Presence presence(FieldDescriptor field) {
        return presences.getOrDefault(key(requireNonNull(field, "field is null")), Presence.OMIT_EMPTY);
    }

    boolean isInline(FieldDescriptor field) {
        return inlineFields.contains(key(requireNonNull(field, "field is null")));
    }

    String jsonName(FieldDescriptor field) {
        return jsonNames.getOrDefault(key(requireNonNull(field, "field is null")), field.getName());
    }

    /** Every {@code message#field} the rules name, so a test can check each exists in the schema. */
    Set<String> namedFields() {
        Set<String> all = new HashSet<>(presences.keySet());
        all.addAll(inlineFields);
        all.addAll(jsonNames.keySet());
        return all;
    }
}
