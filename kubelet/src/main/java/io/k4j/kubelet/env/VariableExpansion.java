package io.k4j.kubelet.env;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Upstream's {@code $(VAR)} expansion, used for env values, command and args, and subPathExpr: {@code $(NAME)} is
 * replaced by the variable's value when it is defined and left as written otherwise, {@code $$} is an escaped
 * {@code $}, and a {@code $} that starts no reference stays as it is. Stateless and thread-safe.
 */
public final class VariableExpansion {
    private VariableExpansion() {}

    /**
     * Expands {@code input}.
     *
     * @param lookup a variable's value, or null when it is not defined
     */
    public static String expand(String input, Function<String, String> lookup) {
        StringBuilder result = new StringBuilder(input.length());
        int checkpoint = 0;
        for (int cursor = 0; cursor < input.length(); cursor++) {
            if (input.charAt(cursor) != '$' || cursor + 1 >= input.length()) {
                continue;
            }
            result.append(input, checkpoint, cursor);
            char next = input.charAt(cursor + 1);
            int advance = 1;
            if (next == '$') {
                result.append('$');
            } else if (next == '(') {
                int closer = input.indexOf(')', cursor + 2);
                if (closer < 0) {
                    result.append("$(");
                } else {
                    String name = input.substring(cursor + 2, closer);
                    String value = lookup.apply(name);
                    result.append(value != null ? value : "$(" + name + ")");
                    advance = closer - cursor;
                }
            } else {
                result.append('$').append(next);
            }
            cursor += advance;
            checkpoint = cursor + 1;
        }
        result.append(input, checkpoint, input.length());
        return result.toString();
    }

    /** Expands {@code input} with a container's environment. */
    public static String expand(String input, List<EnvironmentVariable> environment) {
        Map<String, String> values = asMap(environment);
        return expand(input, values::get);
    }

    /**
     * Expands a container's command or args with its environment, as upstream does before creating the container
     * ({@code ExpandContainerCommandAndArgs}).
     */
    public static List<String> expandAll(List<String> arguments, List<EnvironmentVariable> environment) {
        Map<String, String> values = asMap(environment);
        List<String> expanded = new ArrayList<>(arguments.size());
        for (String argument : arguments) {
            expanded.add(expand(argument, values::get));
        }
        return List.copyOf(expanded);
    }

    private static Map<String, String> asMap(List<EnvironmentVariable> environment) {
        Map<String, String> values = new HashMap<>();
        for (EnvironmentVariable variable : environment) {
            values.put(variable.name(), variable.value());
        }
        return values;
    }
}
