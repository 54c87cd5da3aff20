package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.api.errors.StatusException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed field selector: {@code a=b}, {@code a==b} and {@code a!=b} terms joined by commas, as upstream's
 * {@code fields.ParseSelector}. Immutable and thread-safe.
 */
public record FieldSelector(List<Term> terms) {
    public static final FieldSelector EVERYTHING = new FieldSelector(List.of());

    public FieldSelector {
        terms = List.copyOf(requireNonNull(terms, "terms is null"));
    }

    public record Term(String field, String value, boolean negated) {
        public Term {
            requireNonNull(field, "field is null");
            requireNonNull(value, "value is null");
        }
    }

    public boolean isEverything() {
        return terms.isEmpty();
    }

    public boolean matches(Map<String, String> fields) {
        for (Term term : terms) {
            String value = fields.get(term.field());
            boolean equal = term.value().equals(value == null ? "" : value);
            if (equal == term.negated()) {
                return false;
            }
        }
        return true;
    }

    /** The value required by an {@code =} term on {@code field}, or {@code null}. */
    public String requiredValue(String field) {
        for (Term term : terms) {
            if (!term.negated() && term.field().equals(field)) {
                return term.value();
            }
        }
        return null;
    }

    /** Fails with upstream's 400 {@code field label not supported: x} when a term names an unknown field. */
    public void checkSupported(Set<String> supportedFields) {
        for (Term term : terms) {
            if (!supportedFields.contains(term.field())) {
                throw StatusException.badRequest("field label not supported: " + term.field());
            }
        }
    }

    public static FieldSelector parse(String selector) {
        if (selector == null || selector.isBlank()) {
            return EVERYTHING;
        }
        List<Term> terms = new ArrayList<>();
        for (String part : selector.split(",")) {
            String term = part.trim();
            int notEquals = term.indexOf("!=");
            int doubleEquals = term.indexOf("==");
            int equals = term.indexOf('=');
            if (notEquals > 0) {
                terms.add(new Term(term.substring(0, notEquals).trim(), term.substring(notEquals + 2).trim(), true));
            } else if (doubleEquals > 0) {
                terms.add(new Term(term.substring(0, doubleEquals).trim(), term.substring(doubleEquals + 2).trim(), false));
            } else if (equals > 0) {
                terms.add(new Term(term.substring(0, equals).trim(), term.substring(equals + 1).trim(), false));
            } else {
                throw StatusException.badRequest("invalid selector: '" + selector + "'; can't understand '" + term + "'");
            }
        }
        return new FieldSelector(terms);
    }
}
