package io.k4j.api.selection;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A field selector, as upstream's {@code fields.Selector}: terms {@code field=value}, {@code field==value} or
 * {@code field!=value} joined by commas, where values escape {@code \}, {@code ,} and {@code =} with a
 * backslash. It matches a map of field values (a missing field has the value {@code ""}). The store checks
 * {@link #requirements()} against the fields a resource supports ({@link #firstUnsupportedField}).
 *
 * <p>Immutable and thread-safe.
 */
public final class FieldSelector {
    private static final FieldSelector EVERYTHING = new FieldSelector(List.of());

    private final List<Requirement> requirements;

    private FieldSelector(List<Requirement> requirements) {
        this.requirements = List.copyOf(requirements);
    }

    /**
     * One term.
     *
     * @param field the field path, e.g. {@code spec.nodeName}
     * @param equal whether the term requires equality ({@code =} or {@code ==}) or inequality ({@code !=})
     * @param value the unescaped value
     */
    public record Requirement(String field, boolean equal, String value) {
        public Requirement {
            requireNonNull(field, "field is null");
            requireNonNull(value, "value is null");
        }

        public boolean matches(Map<String, String> fields) {
            return fields.getOrDefault(field, "").equals(value) == equal;
        }

        @Override
        public String toString() {
            return field + (equal ? "=" : "!=") + escapeValue(value);
        }
    }

    /** The selector that matches everything. */
    public static FieldSelector everything() {
        return EVERYTHING;
    }

    /** The selector requiring each field to equal its value ({@code fields.SelectorFromSet}). */
    public static FieldSelector ofEqualities(Map<String, String> fields) {
        List<Requirement> requirements = new ArrayList<>(fields.size());
        fields.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(entry -> requirements.add(new Requirement(entry.getKey(), true, entry.getValue())));
        return new FieldSelector(requirements);
    }

    /**
     * Parses the string form; terms are kept in the sorted order of their text, as upstream does.
     *
     * @throws SelectorParseException with upstream's message, e.g.
     *     {@code invalid selector: 'a'; can't understand 'a'}
     */
    public static FieldSelector parse(String selector) {
        List<String> terms = splitTerms(selector);
        Collections.sort(terms);
        List<Requirement> requirements = new ArrayList<>(terms.size());
        for (String term : terms) {
            if (term.isEmpty()) {
                continue;
            }
            Requirement requirement = splitTerm(term);
            if (requirement == null) {
                throw new SelectorParseException("invalid selector: '" + selector + "'; can't understand '" + term + "'");
            }
            requirements.add(requirement);
        }
        return requirements.isEmpty() ? EVERYTHING : new FieldSelector(requirements);
    }

    /** Whether the object's field values satisfy every term. */
    public boolean matches(Map<String, String> fields) {
        for (Requirement requirement : requirements) {
            if (!requirement.matches(fields)) {
                return false;
            }
        }
        return true;
    }

    public List<Requirement> requirements() {
        return requirements;
    }

    public boolean isEverything() {
        return requirements.isEmpty();
    }

    /**
     * The first field this selector uses that a resource does not support; the caller answers 400 with
     * upstream's {@code field label not supported: <field>}.
     */
    public Optional<String> firstUnsupportedField(Set<String> supportedFields) {
        for (Requirement requirement : requirements) {
            if (!supportedFields.contains(requirement.field())) {
                return Optional.of(requirement.field());
            }
        }
        return Optional.empty();
    }

    /** The value a field must have when the selector pins it with {@code =}; lets indexes narrow a list. */
    public Optional<String> requiresExactMatch(String field) {
        for (Requirement requirement : requirements) {
            if (requirement.equal() && requirement.field().equals(field)) {
                return Optional.of(requirement.value());
            }
        }
        return Optional.empty();
    }

    /** The canonical string form: terms joined by commas, values escaped, {@code ==} written as {@code =}. */
    @Override
    public String toString() {
        StringBuilder builder = new StringBuilder();
        for (Requirement requirement : requirements) {
            if (!builder.isEmpty()) {
                builder.append(',');
            }
            builder.append(requirement);
        }
        return builder.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FieldSelector selector && requirements.equals(selector.requirements);
    }

    @Override
    public int hashCode() {
        return requirements.hashCode();
    }

    /** Escapes {@code \}, {@code ,} and {@code =} in a value. */
    public static String escapeValue(String value) {
        StringBuilder builder = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char character = value.charAt(i);
            if (character == '\\' || character == ',' || character == '=') {
                builder.append('\\');
            }
            builder.append(character);
        }
        return builder.toString();
    }

    /**
     * Removes the escaping of a value.
     *
     * @throws SelectorParseException for an unknown escape or an unescaped {@code ,} or {@code =}, in upstream's
     *     words (which print the offending character as its code point)
     */
    public static String unescapeValue(String value) {
        if (value.indexOf('\\') < 0 && value.indexOf(',') < 0 && value.indexOf('=') < 0) {
            return value;
        }
        StringBuilder builder = new StringBuilder(value.length());
        boolean inEscape = false;
        for (int offset = 0; offset < value.length(); ) {
            int character = value.codePointAt(offset);
            offset += Character.charCount(character);
            if (inEscape) {
                if (character == '\\' || character == ',' || character == '=') {
                    builder.appendCodePoint(character);
                } else {
                    throw new SelectorParseException("invalid field selector: invalid escape sequence: \\" + new String(Character.toChars(character)));
                }
                inEscape = false;
                continue;
            }
            switch (character) {
                case '\\' -> inEscape = true;
                case ',', '=' -> throw new SelectorParseException("invalid field selector: unescaped character in value: " + character);
                default -> builder.appendCodePoint(character);
            }
        }
        if (inEscape) {
            throw new SelectorParseException("invalid field selector: invalid escape sequence: \\");
        }
        return builder.toString();
    }

    private static List<String> splitTerms(String selector) {
        List<String> terms = new ArrayList<>();
        if (selector.isEmpty()) {
            return terms;
        }
        int start = 0;
        boolean inEscape = false;
        for (int i = 0; i < selector.length(); i++) {
            char character = selector.charAt(i);
            if (inEscape) {
                inEscape = false;
            } else if (character == '\\') {
                inEscape = true;
            } else if (character == ',') {
                terms.add(selector.substring(start, i));
                start = i + 1;
            }
        }
        terms.add(selector.substring(start));
        return terms;
    }

    /** Splits at the first operator, trying {@code !=}, then {@code ==}, then {@code =} at each position. */
    private static Requirement splitTerm(String term) {
        for (int i = 0; i < term.length(); i++) {
            if (term.startsWith("!=", i)) {
                return new Requirement(term.substring(0, i), false, unescapeValue(term.substring(i + 2)));
            }
            if (term.startsWith("==", i)) {
                return new Requirement(term.substring(0, i), true, unescapeValue(term.substring(i + 2)));
            }
            if (term.startsWith("=", i)) {
                return new Requirement(term.substring(0, i), true, unescapeValue(term.substring(i + 1)));
            }
        }
        return null;
    }
}
