package io.k4j.api.validation;

import java.util.ArrayList;
import java.util.List;

/**
 * The string-format checks of upstream's {@code k8s.io/apimachinery/pkg/util/validation}: each method returns
 * the list of upstream's explanations of what is wrong (empty when the value is valid), worded exactly as
 * upstream so that API errors match. Callers turn them into {@link FieldError}s with their own field path.
 *
 * <p>The checks are hand-written scanners rather than regular expressions: they run on every request and on
 * untrusted input of any length, so they must stay linear. The regular expressions still appear in the
 * messages because upstream shows them to users.
 *
 * <p>Stateless and thread-safe.
 */
public final class NameValidation {
    public static final int DNS1123_LABEL_MAX_LENGTH = 63;
    public static final int DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
    public static final int DNS1035_LABEL_MAX_LENGTH = 63;
    public static final int LABEL_VALUE_MAX_LENGTH = 63;
    public static final int QUALIFIED_NAME_MAX_LENGTH = 63;

    static final String DNS1123_LABEL_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    static final String DNS1123_SUBDOMAIN_FORMAT = DNS1123_LABEL_FORMAT + "(\\." + DNS1123_LABEL_FORMAT + ")*";
    static final String DNS1035_LABEL_FORMAT = "[a-z]([-a-z0-9]*[a-z0-9])?";
    static final String WILDCARD_DNS1123_SUBDOMAIN_FORMAT = "\\*\\." + DNS1123_SUBDOMAIN_FORMAT;
    static final String QUALIFIED_NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
    static final String LABEL_VALUE_FORMAT = "(" + QUALIFIED_NAME_FORMAT + ")?";
    static final String C_IDENTIFIER_FORMAT = "[A-Za-z_][A-Za-z0-9_]*";
    static final String ENV_VAR_NAME_FORMAT = "[-._a-zA-Z][-._a-zA-Z0-9]*";
    static final String CONFIG_MAP_KEY_FORMAT = "[-._a-zA-Z0-9]+";
    static final String PERCENT_FORMAT = "[0-9]+%";
    static final String HTTP_HEADER_NAME_FORMAT = "[-A-Za-z0-9]+";

    private static final String DNS1123_LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
    private static final String DNS1123_SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    private static final String DNS1035_LABEL_MESSAGE = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
    private static final String WILDCARD_DNS1123_SUBDOMAIN_MESSAGE = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
    private static final String QUALIFIED_NAME_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    private static final String LABEL_VALUE_MESSAGE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    private static final String C_IDENTIFIER_MESSAGE = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'";
    private static final String ENV_VAR_NAME_MESSAGE = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
    private static final String CONFIG_MAP_KEY_MESSAGE = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
    private static final String PERCENT_MESSAGE = "a valid percent string must be a numeric string followed by an ending '%'";
    private static final String HTTP_HEADER_NAME_MESSAGE = "a valid HTTP header must consist of alphanumeric characters or '-'";

    private NameValidation() {}

    /** A DNS label (RFC 1123): at most 63 lower case alphanumerics or '-', starting and ending alphanumeric. */
    public static List<String> isDns1123Label(String value) {
        List<String> errors = new ArrayList<>(1);
        if (value.length() > DNS1123_LABEL_MAX_LENGTH) {
            errors.add(maxLengthError(DNS1123_LABEL_MAX_LENGTH));
        }
        if (!matchesDns1123Label(value, 0, value.length())) {
            // A valid subdomain that is not a valid label can only be wrong because of its dots.
            errors.add(matchesDns1123Subdomain(value)
                    ? "must not contain dots"
                    : regexError(DNS1123_LABEL_MESSAGE, DNS1123_LABEL_FORMAT, "my-name", "123-abc"));
        }
        return errors;
    }

    /** A DNS subdomain (RFC 1123): at most 253 characters, dot-separated DNS labels. */
    public static List<String> isDns1123Subdomain(String value) {
        List<String> errors = new ArrayList<>(1);
        if (value.length() > DNS1123_SUBDOMAIN_MAX_LENGTH) {
            errors.add(maxLengthError(DNS1123_SUBDOMAIN_MAX_LENGTH));
        }
        if (!matchesDns1123Subdomain(value)) {
            errors.add(regexError(DNS1123_SUBDOMAIN_MESSAGE, DNS1123_SUBDOMAIN_FORMAT, "example.com"));
        }
        return errors;
    }

    /** A DNS label (RFC 1035): like an RFC 1123 label but starting with a letter (Service names). */
    public static List<String> isDns1035Label(String value) {
        List<String> errors = new ArrayList<>(1);
        if (value.length() > DNS1035_LABEL_MAX_LENGTH) {
            errors.add(maxLengthError(DNS1035_LABEL_MAX_LENGTH));
        }
        if (value.isEmpty() || !isLowerLetter(value.charAt(0)) || !matchesDns1123Label(value, 0, value.length())) {
            errors.add(regexError(DNS1035_LABEL_MESSAGE, DNS1035_LABEL_FORMAT, "my-name", "abc-123"));
        }
        return errors;
    }

    /** A wildcard DNS subdomain (RFC 1034 section 4.3.3), e.g. {@code *.example.com}. */
    public static List<String> isWildcardDns1123Subdomain(String value) {
        List<String> errors = new ArrayList<>(1);
        if (value.length() > DNS1123_SUBDOMAIN_MAX_LENGTH) {
            errors.add(maxLengthError(DNS1123_SUBDOMAIN_MAX_LENGTH));
        }
        if (!value.startsWith("*.") || !matchesDns1123Subdomain(value.substring(2))) {
            errors.add(regexError(WILDCARD_DNS1123_SUBDOMAIN_MESSAGE, WILDCARD_DNS1123_SUBDOMAIN_FORMAT, "*.example.com"));
        }
        return errors;
    }

    /**
     * A qualified name, the format of label keys, annotation keys and finalizers: a name of at most 63
     * characters with an optional DNS subdomain prefix and '/', e.g. {@code example.com/MyName}.
     */
    public static List<String> isQualifiedName(String value) {
        List<String> errors = new ArrayList<>(1);
        int firstSlash = value.indexOf('/');
        String name;
        if (firstSlash < 0) {
            name = value;
        } else if (value.indexOf('/', firstSlash + 1) < 0) {
            String prefix = value.substring(0, firstSlash);
            name = value.substring(firstSlash + 1);
            if (prefix.isEmpty()) {
                errors.add("prefix part " + emptyError());
            } else {
                for (String message : isDns1123Subdomain(prefix)) {
                    errors.add("prefix part " + message);
                }
            }
        } else {
            errors.add("a qualified name " + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc")
                    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return errors;
        }
        if (name.isEmpty()) {
            errors.add("name part " + emptyError());
        } else if (name.length() > QUALIFIED_NAME_MAX_LENGTH) {
            errors.add("name part " + maxLengthError(QUALIFIED_NAME_MAX_LENGTH));
        }
        if (!matchesQualifiedNamePart(name)) {
            errors.add("name part " + regexError(QUALIFIED_NAME_MESSAGE, QUALIFIED_NAME_FORMAT, "MyName", "my.name", "123-abc"));
        }
        return errors;
    }

    /** A label value: empty, or at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric. */
    public static List<String> isValidLabelValue(String value) {
        List<String> errors = new ArrayList<>(1);
        if (value.length() > LABEL_VALUE_MAX_LENGTH) {
            errors.add(maxLengthError(LABEL_VALUE_MAX_LENGTH));
        }
        if (!value.isEmpty() && !matchesQualifiedNamePart(value)) {
            errors.add(regexError(LABEL_VALUE_MESSAGE, LABEL_VALUE_FORMAT, "MyValue", "my_value", "12345"));
        }
        return errors;
    }

    /** A C identifier; the format only, not the length. */
    public static List<String> isCIdentifier(String value) {
        boolean valid = !value.isEmpty() && (isLetter(value.charAt(0)) || value.charAt(0) == '_');
        for (int i = 1; valid && i < value.length(); i++) {
            char character = value.charAt(i);
            valid = isLetter(character) || isDigit(character) || character == '_';
        }
        return valid ? List.of() : List.of(regexError(C_IDENTIFIER_MESSAGE, C_IDENTIFIER_FORMAT, "my_name", "MY_NAME", "MyName"));
    }

    /** An environment variable name as containers accept it (upstream's {@code IsEnvVarName}). */
    public static List<String> isEnvVarName(String value) {
        List<String> errors = new ArrayList<>(1);
        boolean valid = !value.isEmpty() && !isDigit(value.charAt(0));
        for (int i = 0; valid && i < value.length(); i++) {
            char character = value.charAt(i);
            valid = isLetter(character) || isDigit(character) || character == '-' || character == '.' || character == '_';
        }
        if (!valid) {
            errors.add(regexError(ENV_VAR_NAME_MESSAGE, ENV_VAR_NAME_FORMAT, "my.env-name", "MY_ENV.NAME", "MyEnvName1"));
        }
        errors.addAll(changeDirectoryPrefixErrors(value));
        return errors;
    }

    /** A key of a ConfigMap's or Secret's data. */
    public static List<String> isConfigMapKey(String value) {
        List<String> errors = new ArrayList<>(1);
        if (value.length() > DNS1123_SUBDOMAIN_MAX_LENGTH) {
            errors.add(maxLengthError(DNS1123_SUBDOMAIN_MAX_LENGTH));
        }
        boolean valid = !value.isEmpty();
        for (int i = 0; valid && i < value.length(); i++) {
            char character = value.charAt(i);
            valid = isLetter(character) || isDigit(character) || character == '-' || character == '.' || character == '_';
        }
        if (!valid) {
            errors.add(regexError(CONFIG_MAP_KEY_MESSAGE, CONFIG_MAP_KEY_FORMAT, "key.name", "KEY_NAME", "key-name"));
        }
        errors.addAll(changeDirectoryPrefixErrors(value));
        return errors;
    }

    /** A named port (IANA service name): at most 15 of [-a-z0-9], at least one letter, no '--', no '-' at the ends. */
    public static List<String> isValidPortName(String port) {
        List<String> errors = new ArrayList<>(1);
        if (port.length() > 15) {
            errors.add(maxLengthError(15));
        }
        boolean charset = !port.isEmpty();
        boolean hasLetter = false;
        for (int i = 0; i < port.length(); i++) {
            char character = port.charAt(i);
            charset &= isLowerLetter(character) || isDigit(character) || character == '-';
            hasLetter |= isLowerLetter(character);
        }
        if (!charset) {
            errors.add("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        }
        if (!hasLetter) {
            errors.add("must contain at least one letter (a-z)");
        }
        if (port.contains("--")) {
            errors.add("must not contain consecutive hyphens");
        }
        if (!port.isEmpty() && (port.charAt(0) == '-' || port.charAt(port.length() - 1) == '-')) {
            errors.add("must not begin or end with a hyphen");
        }
        return errors;
    }

    /** A non-zero port number. */
    public static List<String> isValidPortNumber(long port) {
        return isInRange(port, 1, 65535);
    }

    /** A number in an inclusive range. */
    public static List<String> isInRange(long value, long minimum, long maximum) {
        return value >= minimum && value <= maximum ? List.of() : List.of(inclusiveRangeError(minimum, maximum));
    }

    /** A Unix group id (0 to 2^32-1). */
    public static List<String> isValidGroupId(long groupId) {
        return isInRange(groupId, 0, 0xffffffffL);
    }

    /** A Unix user id (0 to 2^32-1). */
    public static List<String> isValidUserId(long userId) {
        return isInRange(userId, 0, 0xffffffffL);
    }

    /** A percentage such as {@code 25%}. */
    public static List<String> isValidPercent(String percent) {
        boolean valid = percent.length() >= 2 && percent.charAt(percent.length() - 1) == '%';
        for (int i = 0; valid && i < percent.length() - 1; i++) {
            valid = isDigit(percent.charAt(i));
        }
        return valid ? List.of() : List.of(regexError(PERCENT_MESSAGE, PERCENT_FORMAT, "1%", "93%"));
    }

    /** An HTTP header name as Go's HTTP library accepts it. */
    public static List<String> isHttpHeaderName(String value) {
        boolean valid = !value.isEmpty();
        for (int i = 0; valid && i < value.length(); i++) {
            char character = value.charAt(i);
            valid = isLetter(character) || isDigit(character) || character == '-';
        }
        return valid ? List.of() : List.of(regexError(HTTP_HEADER_NAME_MESSAGE, HTTP_HEADER_NAME_FORMAT, "X-Header-Name"));
    }

    /**
     * Whether a name can be a segment of a request path (upstream's {@code path.IsValidPathSegmentName}),
     * which every object name must be, whatever its resource's own rules.
     */
    public static List<String> isValidPathSegmentName(String name) {
        if (name.equals(".") || name.equals("..")) {
            return List.of("may not be '" + name + "'");
        }
        List<String> errors = new ArrayList<>(0);
        for (String illegal : List.of("/", "%")) {
            if (name.contains(illegal)) {
                errors.add("may not contain '" + illegal + "'");
            }
        }
        return errors;
    }

    /** Like {@link #isValidPathSegmentName} for a prefix that will have characters appended (generateName). */
    public static List<String> isValidPathSegmentPrefix(String prefix) {
        List<String> errors = new ArrayList<>(0);
        for (String illegal : List.of("/", "%")) {
            if (prefix.contains(illegal)) {
                errors.add("may not contain '" + illegal + "'");
            }
        }
        return errors;
    }

    /** An IP address (IPv4, or IPv6 including IPv4-mapped forms); IPv4 parts may have leading zeros, as upstream's sloppy parser allows. */
    public static FieldErrors isValidIp(String field, String value) {
        return IpAddresses.parse(value) == null
                ? single(FieldError.invalid(field, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
                : new FieldErrors();
    }

    /** An IPv4 address, or an IPv4-mapped IPv6 address as upstream's {@code To4()} accepts it. */
    public static FieldErrors isValidIpv4Address(String field, String value) {
        byte[] address = IpAddresses.parse(value);
        return address == null || !IpAddresses.isIpv4(address)
                ? single(FieldError.invalid(field, value, "must be a valid IPv4 address"))
                : new FieldErrors();
    }

    /** An IPv6 address that is not an IPv4(-mapped) address. */
    public static FieldErrors isValidIpv6Address(String field, String value) {
        byte[] address = IpAddresses.parse(value);
        return address == null || IpAddresses.isIpv4(address)
                ? single(FieldError.invalid(field, value, "must be a valid IPv6 address"))
                : new FieldErrors();
    }

    /** A CIDR such as {@code 10.0.0.0/8} or {@code 2001:db8::/64}. */
    public static FieldErrors isValidCidr(String field, String value) {
        return IpAddresses.parseCidrPrefixLength(value) < 0
                ? single(FieldError.invalid(field, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
                : new FieldErrors();
    }

    /** A DNS subdomain with at least three dot-separated segments and no trailing dot (upstream's {@code IsFullyQualifiedName}). */
    public static FieldErrors isFullyQualifiedName(String field, String name) {
        if (name.isEmpty()) {
            return single(FieldError.required(field, ""));
        }
        List<String> errors = isDns1123Subdomain(name);
        if (!errors.isEmpty()) {
            return single(FieldError.invalid(field, name, String.join(",", errors)));
        }
        if (name.split("\\.", -1).length < 3) {
            return single(FieldError.invalid(field, name, "should be a domain with at least three segments separated by dots"));
        }
        return new FieldErrors();
    }

    /** The explanation of a too long value. */
    public static String maxLengthError(int length) {
        return "must be no more than " + length + " characters";
    }

    /** The explanation of a value that does not match a format, with examples of valid values. */
    public static String regexError(String message, String format, String... examples) {
        if (examples.length == 0) {
            return message + " (regex used for validation is '" + format + "')";
        }
        StringBuilder builder = new StringBuilder(message).append(" (e.g. ");
        for (int i = 0; i < examples.length; i++) {
            if (i > 0) {
                builder.append(" or ");
            }
            builder.append('\'').append(examples[i]).append("', ");
        }
        return builder.append("regex used for validation is '").append(format).append("')").toString();
    }

    /** The explanation of an empty value that must not be. */
    public static String emptyError() {
        return "must be non-empty";
    }

    /** The explanation of a number out of an inclusive range. */
    public static String inclusiveRangeError(long low, long high) {
        return "must be between " + low + " and " + high + ", inclusive";
    }

    private static List<String> changeDirectoryPrefixErrors(String value) {
        if (value.equals(".")) {
            return List.of("must not be '.'");
        }
        if (value.equals("..")) {
            return List.of("must not be '..'");
        }
        if (value.startsWith("..")) {
            return List.of("must not start with '..'");
        }
        return List.of();
    }

    private static FieldErrors single(FieldError error) {
        return new FieldErrors().add(error);
    }

    static boolean matchesDns1123Subdomain(String value) {
        int start = 0;
        while (true) {
            int dot = value.indexOf('.', start);
            int end = dot < 0 ? value.length() : dot;
            if (!matchesDns1123Label(value, start, end)) {
                return false;
            }
            if (dot < 0) {
                return true;
            }
            start = dot + 1;
        }
    }

    /** Whether value[start, end) matches {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?}, ignoring length. */
    private static boolean matchesDns1123Label(String value, int start, int end) {
        if (start >= end) {
            return false;
        }
        for (int i = start; i < end; i++) {
            char character = value.charAt(i);
            boolean alphanumeric = isLowerLetter(character) || isDigit(character);
            if (!alphanumeric && (character != '-' || i == start || i == end - 1)) {
                return false;
            }
        }
        return true;
    }

    /** Whether value matches {@code ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]}, ignoring length. */
    private static boolean matchesQualifiedNamePart(String value) {
        if (value.isEmpty()) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char character = value.charAt(i);
            boolean alphanumeric = isLetter(character) || isDigit(character);
            boolean inner = character == '-' || character == '_' || character == '.';
            if (!alphanumeric && (!inner || i == 0 || i == value.length() - 1)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLowerLetter(char character) {
        return character >= 'a' && character <= 'z';
    }

    private static boolean isLetter(char character) {
        return isLowerLetter(character) || (character >= 'A' && character <= 'Z');
    }

    private static boolean isDigit(char character) {
        return character >= '0' && character <= '9';
    }
}
