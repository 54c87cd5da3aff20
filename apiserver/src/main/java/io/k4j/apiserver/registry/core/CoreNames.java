package io.k4j.apiserver.registry.core;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Upstream's name checks ({@code k8s.io/apimachinery/pkg/util/validation}) with their exact messages: each
 * returns the list of problems, empty when the value is valid. Stateless and thread-safe.
 */
public final class CoreNames {
    private static final String DNS1123_LABEL_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String DNS1123_SUBDOMAIN_FORMAT = DNS1123_LABEL_FORMAT + "(\\." + DNS1123_LABEL_FORMAT + ")*";
    private static final String DNS1035_LABEL_FORMAT = "[a-z]([-a-z0-9]*[a-z0-9])?";
    private static final String QUALIFIED_NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    private static final String CONFIG_MAP_KEY_FORMAT = "[-._a-zA-Z0-9]+";
    private static final String C_IDENTIFIER_FORMAT = "[A-Za-z_][A-Za-z0-9_]*";
    private static final Pattern DNS1123_LABEL = Pattern.compile(DNS1123_LABEL_FORMAT);
    private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(DNS1123_SUBDOMAIN_FORMAT);
    private static final Pattern DNS1035_LABEL = Pattern.compile(DNS1035_LABEL_FORMAT);
    private static final Pattern QUALIFIED_NAME = Pattern.compile(QUALIFIED_NAME_FORMAT);
    private static final Pattern CONFIG_MAP_KEY = Pattern.compile(CONFIG_MAP_KEY_FORMAT);
    private static final Pattern PORT_NAME_CHARACTERS = Pattern.compile("[-a-z0-9]+");
    private static final Pattern LETTER = Pattern.compile(".*[a-z].*");
    private static final Pattern C_IDENTIFIER = Pattern.compile(C_IDENTIFIER_FORMAT);

    private CoreNames() {}

    public static List<String> dns1123Label(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > 63) {
            errors.add(maxLength(63));
        }
        if (!DNS1123_LABEL.matcher(value).matches()) {
            if (DNS1123_SUBDOMAIN.matcher(value).matches()) {
                errors.add("must not contain dots");
            } else {
                errors.add(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                        DNS1123_LABEL_FORMAT, "my-name", "123-abc"));
            }
        }
        return errors;
    }

    public static List<String> dns1123Subdomain(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > 253) {
            errors.add(maxLength(253));
        }
        if (!DNS1123_SUBDOMAIN.matcher(value).matches()) {
            errors.add(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
                    DNS1123_SUBDOMAIN_FORMAT, "example.com"));
        }
        return errors;
    }

    public static List<String> dns1035Label(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > 63) {
            errors.add(maxLength(63));
        }
        if (!DNS1035_LABEL.matcher(value).matches()) {
            errors.add(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
                    DNS1035_LABEL_FORMAT, "my-name", "abc-123"));
        }
        return errors;
    }

    /** A label key, annotation key, finalizer or taint key: an optional DNS subdomain prefix and a name part. */
    public static List<String> qualifiedName(String value) {
        List<String> errors = new ArrayList<>();
        String[] parts = value.split("/", -1);
        String name;
        if (parts.length == 1) {
            name = parts[0];
        } else if (parts.length == 2) {
            String prefix = parts[0];
            name = parts[1];
            if (prefix.isEmpty()) {
                errors.add("prefix part must be non-empty");
            } else {
                dns1123Subdomain(prefix).forEach(message -> errors.add("prefix part " + message));
            }
        } else {
            errors.add("a qualified name " + regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                    QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc") + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return errors;
        }
        if (name.isEmpty()) {
            errors.add("name part must be non-empty");
        } else if (name.length() > 63) {
            errors.add("name part " + maxLength(63));
        }
        if (!QUALIFIED_NAME.matcher(name).matches()) {
            errors.add("name part " + regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                    QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc"));
        }
        return errors;
    }

    /** A key of a ConfigMap's or Secret's data. */
    public static List<String> configMapKey(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > 253) {
            errors.add(maxLength(253));
        }
        if (!CONFIG_MAP_KEY.matcher(value).matches()) {
            errors.add(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                    CONFIG_MAP_KEY_FORMAT, "key.name", "KEY_NAME", "key-name"));
        }
        if (value.equals(".")) {
            errors.add("must not be '.'");
        } else if (value.equals("..")) {
            errors.add("must not be '..'");
        } else if (value.startsWith("..")) {
            errors.add("must not start with '..'");
        }
        return errors;
    }

    /** An IANA service name used as a port name. */
    public static List<String> portName(String value) {
        List<String> errors = new ArrayList<>();
        if (value.length() > 15) {
            errors.add(maxLength(15));
        }
        if (!PORT_NAME_CHARACTERS.matcher(value).matches()) {
            errors.add("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        }
        if (!LETTER.matcher(value).matches()) {
            errors.add("must contain at least one letter (a-z)");
        }
        if (value.contains("--")) {
            errors.add("must not contain consecutive hyphens");
        }
        if (!value.isEmpty() && (value.charAt(0) == '-' || value.charAt(value.length() - 1) == '-')) {
            errors.add("must not begin or end with a hyphen");
        }
        return errors;
    }

    /** A port number. */
    public static List<String> portNumber(long port) {
        return port >= 1 && port <= 65535 ? List.of() : List.of("must be between 1 and 65535, inclusive");
    }

    /** A C identifier, e.g. an environment variable name for {@code envFrom} prefixes in older releases. */
    public static List<String> cIdentifier(String value) {
        return C_IDENTIFIER.matcher(value).matches()
                ? List.of()
                : List.of(regexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
                        C_IDENTIFIER_FORMAT, "my_name", "MY_NAME", "MyName"));
    }

    /** An environment variable name: any printable ASCII except '=' (relaxed validation, on since 1.32). */
    public static List<String> environmentVariableName(String value) {
        boolean valid = !value.isEmpty();
        for (int index = 0; index < value.length() && valid; index++) {
            char character = value.charAt(index);
            valid = character >= ' ' && character <= '~' && character != '=';
        }
        return valid ? List.of() : List.of("a valid environment variable name must consist only of printable ASCII characters other than '='");
    }

    private static String maxLength(int length) {
        return "must be no more than " + length + " characters";
    }

    private static String regexError(String message, String format, String... examples) {
        StringBuilder result = new StringBuilder(message);
        if (examples.length > 0) {
            result.append(" (e.g. ");
            for (int index = 0; index < examples.length; index++) {
                if (index > 0) {
                    result.append(" or ");
                }
                result.append('\'').append(examples[index]).append("', ");
            }
            result.append("regex used for validation is '").append(format).append("')");
        } else {
            result.append(" (regex used for validation is '").append(format).append("')");
        }
        return result.toString();
    }
}
