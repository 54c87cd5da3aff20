package io.k4j.apiserver.registry.generic;

import java.util.regex.Pattern;

/**
 * Upstream's syntax rules for qualified names (label and annotation keys, finalizers), label values and
 * DNS names, with upstream's messages. Thread-safe.
 */
final class LabelSyntax {
    static final String LABEL_VALUE_MESSAGE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    static final String DNS_SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    static final String DNS_LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    private static final String NAME_PART_MESSAGE = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

    private static final Pattern NAME_PART = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    private LabelSyntax() {}

    static boolean isQualifiedName(String value) {
        return qualifiedNameMessage(value) == null;
    }

    /** Why {@code value} is not a qualified name, or {@code null} when it is one. */
    static String qualifiedNameMessage(String value) {
        String name = value;
        int slash = value.indexOf('/');
        if (slash >= 0) {
            String prefix = value.substring(0, slash);
            name = value.substring(slash + 1);
            if (prefix.isEmpty()) {
                return "prefix part must be non-empty";
            }
            if (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                return "prefix part " + DNS_SUBDOMAIN_MESSAGE;
            }
        }
        if (name.isEmpty()) {
            return "name part must be non-empty";
        }
        if (name.length() > 63) {
            return "name part must be no more than 63 characters";
        }
        if (!NAME_PART.matcher(name).matches()) {
            return NAME_PART_MESSAGE;
        }
        return null;
    }

    static boolean isLabelValue(String value) {
        return value.length() <= 63 && LABEL_VALUE.matcher(value).matches();
    }

    static boolean isDnsSubdomain(String value) {
        return value.length() <= 253 && DNS_SUBDOMAIN.matcher(value).matches();
    }

    static boolean isDnsLabel(String value) {
        return value.length() <= 63 && DNS_LABEL.matcher(value).matches();
    }
}
