package io.k4j.api.schema;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Upstream's documentation of the built-in types, for the {@code description}s of the OpenAPI documents
 * ({@code kubectl explain} prints them). fabric8 generates its model classes from upstream's OpenAPI and keeps
 * each description as the javadoc of the class and of its getters; the model's {@code sources} artifacts are on
 * the class path for this. Only generated sources are read: fabric8's hand-written classes (Quantity) carry
 * fabric8's own prose, not upstream's.
 *
 * <p>fabric8's javadoc of fields that hold one nested object (or a Time) is the enclosing type's description
 * instead of the field's; those fields are left undocumented, so {@code kubectl explain} shows only the
 * description of their type for them.
 *
 * <p>The javadoc is upstream's text with line breaks written as {@code <br><p> } and HTML escapes; both are
 * undone here. A type whose sources are absent simply has no documentation.
 *
 * <p>Thread-safe: sources are read at most once per class and kept.
 */
final class ModelDocumentation {
    /** What the generated sources are marked with; anything else is not upstream's text. */
    private static final String GENERATED_MARKER = "@Generated(\"io.fabric8.kubernetes.schema.generator";
    private static final Pattern JAVADOC = Pattern.compile("/\\*\\*(.*?)\\*/", Pattern.DOTALL);
    private static final Pattern JSON_PROPERTY = Pattern.compile("\\G\\s*@JsonProperty\\(\"([^\"]+)\"\\)");
    private static final Pattern LINE_PREFIX = Pattern.compile("(?m)^\\s*\\* ?");

    /** The documentation of one type: its own description and its fields' by JSON name. Immutable. */
    record TypeDocumentation(Optional<String> description, Map<String, String> fields) {
        static final TypeDocumentation NONE = new TypeDocumentation(Optional.empty(), Map.of());

        TypeDocumentation {
            requireNonNull(description, "description is null");
            fields = Map.copyOf(requireNonNull(fields, "fields is null"));
        }

        Optional<String> field(String name) {
            return Optional.ofNullable(fields.get(name));
        }
    }

    private static final ModelDocumentation SHARED = new ModelDocumentation();

    private final Map<Class<?>, TypeDocumentation> byClass = new ConcurrentHashMap<>();

    private ModelDocumentation() {}

    static ModelDocumentation shared() {
        return SHARED;
    }

    TypeDocumentation of(Class<?> modelClass) {
        return byClass.computeIfAbsent(modelClass, ModelDocumentation::read);
    }

    private static TypeDocumentation read(Class<?> modelClass) {
        String resource = modelClass.getName().replace('.', '/') + ".java";
        ClassLoader loader = modelClass.getClassLoader() != null ? modelClass.getClassLoader() : ClassLoader.getSystemClassLoader();
        try (InputStream source = loader.getResourceAsStream(resource)) {
            if (source == null) {
                return TypeDocumentation.NONE;
            }
            return parse(new String(source.readAllBytes(), StandardCharsets.UTF_8), modelClass.getSimpleName());
        } catch (IOException unreadable) {
            throw new UncheckedIOException("cannot read " + resource, unreadable);
        }
    }

    /** The documentation in the generated source of the class with the given simple name. */
    static TypeDocumentation parse(String source, String simpleName) {
        if (!source.contains(GENERATED_MARKER)) {
            return TypeDocumentation.NONE;
        }
        Matcher declaration = Pattern.compile("\\bpublic\\s+(?:final\\s+)?class\\s+" + Pattern.quote(simpleName) + "\\b").matcher(source);
        int classStart = declaration.find() ? declaration.start() : -1;
        Optional<String> description = Optional.empty();
        Map<String, String> fields = new HashMap<>();
        Matcher javadoc = JAVADOC.matcher(source);
        Matcher property = JSON_PROPERTY.matcher(source);
        while (javadoc.find()) {
            String text = text(javadoc.group(1));
            if (javadoc.end() <= classStart) {
                // the last comment before the declaration documents the class (annotations sit in between)
                description = text.isEmpty() ? Optional.empty() : Optional.of(text);
                continue;
            }
            property.region(javadoc.end(), source.length());
            if (property.lookingAt() && !text.isEmpty()) {
                // a getter and its setter carry the same text; the first one is kept
                fields.putIfAbsent(property.group(1), text);
            }
        }
        // fabric8's generator documents every field holding a single nested object (and every Time) with the
        // description of the class it is in, not the field's own: such text would mislead, so it is left out
        description.ifPresent(text -> fields.values().removeIf(text::equals));
        return new TypeDocumentation(description, fields);
    }

    /** The text of a javadoc comment's body as upstream wrote it. */
    static String text(String body) {
        String text = LINE_PREFIX.matcher(body).replaceAll("").strip();
        return text.replace("<br><p> ", "\n")
                .replace("<br><p>", "\n")
                .replace("&#42;", "*")
                .replace("&#47;", "/")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&");
    }
}
