package io.k4j.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NameValidationTest {
    private static final String SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    private static final String LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

    @ParameterizedTest
    @ValueSource(strings = {"a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2"})
    void acceptsDns1123Labels(String value) {
        assertThat(NameValidation.isDns1123Label(value)).isEmpty();
        assertThat(NameValidation.isDns1123Label("a".repeat(63))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", "a\n"})
    void rejectsBadDns1123Labels(String value) {
        assertThat(NameValidation.isDns1123Label(value)).isNotEmpty();
    }

    @Test
    void dns1123LabelMessagesMatchUpstream() {
        assertThat(NameValidation.isDns1123Label("A_b")).containsExactly(LABEL_MESSAGE);
        assertThat(NameValidation.isDns1123Label("a.b")).containsExactly("must not contain dots");
        assertThat(NameValidation.isDns1123Label("a".repeat(64))).containsExactly("must be no more than 63 characters");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2", "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "0.a", "01.a", "1a.a", "1-a.a", "a.b.c.d.e"})
    void acceptsDns1123Subdomains(String value) {
        assertThat(NameValidation.isDns1123Subdomain(value)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "_", "a_", "a_b", ".", "a.", ".a", "a..b", "1.", ".1", " ", "a b", "a.-b", "a-.b", "a\n"})
    void rejectsBadDns1123Subdomains(String value) {
        assertThat(NameValidation.isDns1123Subdomain(value)).containsExactly(SUBDOMAIN_MESSAGE);
    }

    @Test
    void subdomainLengthIsLimitedTo253() {
        String longest = String.join(".", List.of("a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61)));
        assertThat(longest).hasSize(253);
        assertThat(NameValidation.isDns1123Subdomain(longest)).isEmpty();
        assertThat(NameValidation.isDns1123Subdomain(longest + "d")).containsExactly("must be no more than 253 characters");
        assertThat(NameValidation.isDns1123Subdomain("A".repeat(300))).containsExactly("must be no more than 253 characters", SUBDOMAIN_MESSAGE);
    }

    @Test
    void checksDns1035Labels() {
        assertThat(NameValidation.isDns1035Label("a-1")).isEmpty();
        assertThat(NameValidation.isDns1035Label("abc")).isEmpty();
        assertThat(NameValidation.isDns1035Label("1a")).containsExactly(
                "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
        assertThat(NameValidation.isDns1035Label("")).hasSize(1);
        assertThat(NameValidation.isDns1035Label("a.b")).hasSize(1);
        assertThat(NameValidation.isDns1035Label("a-")).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple", "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo", "a.b", "A.B"})
    void acceptsQualifiedNames(String value) {
        assertThat(NameValidation.isQualifiedName(value)).isEmpty();
        assertThat(NameValidation.isQualifiedName("a".repeat(63))).isEmpty();
        assertThat(NameValidation.isQualifiedName("a".repeat(253) + "/" + "b".repeat(63))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash", "Example.com/abc", "example_com/abc", "example.com/", "/simple", "", " ", "a b", "a/", "/a"})
    void rejectsBadQualifiedNames(String value) {
        assertThat(NameValidation.isQualifiedName(value)).isNotEmpty();
    }

    @Test
    void qualifiedNameMessagesMatchUpstream() {
        String nameMessage = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        assertThat(NameValidation.isQualifiedName("a-")).containsExactly(nameMessage);
        assertThat(NameValidation.isQualifiedName("")).containsExactly("name part must be non-empty", nameMessage);
        assertThat(NameValidation.isQualifiedName("/a")).containsExactly("prefix part must be non-empty");
        assertThat(NameValidation.isQualifiedName("Example.com/a")).containsExactly("prefix part " + SUBDOMAIN_MESSAGE);
        assertThat(NameValidation.isQualifiedName("a".repeat(64))).containsExactly("name part must be no more than 63 characters");
        assertThat(NameValidation.isQualifiedName("a/b/c")).containsExactly(
                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    }

    @Test
    void checksLabelValues() {
        for (String value : List.of("simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", "", "A", "a_b", "a.b", "Uppercase_Is_OK_123", "a".repeat(63))) {
            assertThat(NameValidation.isValidLabelValue(value)).as(value).isEmpty();
        }
        for (String value : List.of("nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes\\are\\bad", "-starts-with-dash", "ends-with-dash-", ".starts.with.dot", "ends.with.dot.")) {
            assertThat(NameValidation.isValidLabelValue(value)).as(value).containsExactly(
                    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
        }
        assertThat(NameValidation.isValidLabelValue("a".repeat(64))).containsExactly("must be no more than 63 characters");
    }

    @Test
    void checksCIdentifiers() {
        for (String value : List.of("a", "ab", "abc", "a1", "_a", "a_", "a_b", "a_1", "a__1__2__b", "__abc_123", "A", "AB", "AbC", "A1", "_A", "A_", "A_B", "A_1")) {
            assertThat(NameValidation.isCIdentifier(value)).as(value).isEmpty();
        }
        for (String value : List.of("", "1", "123", "1a", "-", "a-", "-a", "1-", "-1", "1_", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", "#a#")) {
            assertThat(NameValidation.isCIdentifier(value)).as(value).containsExactly(
                    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')");
        }
    }

    @Test
    void checksEnvironmentVariableNames() {
        for (String value : List.of("A", "ABC", "AbC_123", "abc", "a.b.c", "a-b-c", "A_B", "_a", ".a")) {
            assertThat(NameValidation.isEnvVarName(value)).as(value).isEmpty();
        }
        assertThat(NameValidation.isEnvVarName("1a")).hasSize(1);
        assertThat(NameValidation.isEnvVarName("a=b")).hasSize(1);
        assertThat(NameValidation.isEnvVarName("")).hasSize(1);
        assertThat(NameValidation.isEnvVarName("..")).containsExactly("must not be '..'");
        assertThat(NameValidation.isEnvVarName(".")).containsExactly("must not be '.'");
        assertThat(NameValidation.isEnvVarName("..a")).containsExactly("must not start with '..'");
    }

    @Test
    void checksConfigMapKeys() {
        assertThat(NameValidation.isConfigMapKey("key.name")).isEmpty();
        assertThat(NameValidation.isConfigMapKey("KEY_NAME-1")).isEmpty();
        assertThat(NameValidation.isConfigMapKey("a/b")).containsExactly(
                "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
        assertThat(NameValidation.isConfigMapKey("..")).containsExactly("must not be '..'");
        assertThat(NameValidation.isConfigMapKey("")).hasSize(1);
    }

    @Test
    void checksPortNames() {
        for (String value : List.of("telnet", "re-mail-ck", "pop3", "a", "a-1", "1-a", "a-1-b-2-c", "1-a-2-b-3")) {
            assertThat(NameValidation.isValidPortName(value)).as(value).isEmpty();
        }
        assertThat(NameValidation.isValidPortName("longerthan15characters")).containsExactly("must be no more than 15 characters");
        assertThat(NameValidation.isValidPortName("")).containsExactly(
                "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)", "must contain at least one letter (a-z)");
        assertThat(NameValidation.isValidPortName("12345")).containsExactly("must contain at least one letter (a-z)");
        assertThat(NameValidation.isValidPortName("a--b")).containsExactly("must not contain consecutive hyphens");
        assertThat(NameValidation.isValidPortName("-a")).containsExactly("must not begin or end with a hyphen");
        assertThat(NameValidation.isValidPortName("Http")).containsExactly("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }

    @Test
    void checksNumbers() {
        assertThat(NameValidation.isValidPortNumber(1)).isEmpty();
        assertThat(NameValidation.isValidPortNumber(65535)).isEmpty();
        assertThat(NameValidation.isValidPortNumber(0)).containsExactly("must be between 1 and 65535, inclusive");
        assertThat(NameValidation.isValidPortNumber(65536)).containsExactly("must be between 1 and 65535, inclusive");
        assertThat(NameValidation.isValidUserId(-1)).containsExactly("must be between 0 and 4294967295, inclusive");
        assertThat(NameValidation.isValidGroupId(4294967295L)).isEmpty();
        assertThat(NameValidation.isValidPercent("25%")).isEmpty();
        assertThat(NameValidation.isValidPercent("%")).hasSize(1);
        assertThat(NameValidation.isValidPercent("2.5%")).hasSize(1);
    }

    @Test
    void checksPathSegmentNames() {
        assertThat(NameValidation.isValidPathSegmentName("system:admin")).isEmpty();
        assertThat(NameValidation.isValidPathSegmentName(".")).containsExactly("may not be '.'");
        assertThat(NameValidation.isValidPathSegmentName("..")).containsExactly("may not be '..'");
        assertThat(NameValidation.isValidPathSegmentName("a/b%c")).containsExactly("may not contain '/'", "may not contain '%'");
        assertThat(NameValidation.isValidPathSegmentPrefix("..")).isEmpty();
    }

    @Test
    void checksIpAddresses() {
        for (String value : List.of("127.0.0.1", "10.0.0.1", "255.255.255.255", "0.0.0.0", "010.001.0.1", "::", "::1", "2001:db8::ffff", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4", "1::", "1:2:3:4:5:6:1.2.3.4", "fe80::1")) {
            assertThat(NameValidation.isValidIp("spec.clusterIP", value).list()).as(value).isEmpty();
        }
        for (String value : List.of("", "1", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.4 ", "a.b.c.d", ":", ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "fe80::1%eth0", "1:2:3:4:5:6:7::8", "::1.2.3", "localhost", "1.2.3.-4")) {
            assertThat(NameValidation.isValidIp("spec.clusterIP", value).list()).as(value)
                    .extracting(FieldError::message)
                    .containsExactly("spec.clusterIP: Invalid value: \"" + value + "\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
        }
        assertThat(NameValidation.isValidIpv4Address("f", "1.2.3.4").list()).isEmpty();
        assertThat(NameValidation.isValidIpv4Address("f", "::ffff:1.2.3.4").list()).isEmpty();
        assertThat(NameValidation.isValidIpv4Address("f", "::1").list()).hasSize(1);
        assertThat(NameValidation.isValidIpv6Address("f", "::1").list()).isEmpty();
        assertThat(NameValidation.isValidIpv6Address("f", "1.2.3.4").list()).hasSize(1);
        assertThat(NameValidation.isValidCidr("f", "10.0.0.0/8").list()).isEmpty();
        assertThat(NameValidation.isValidCidr("f", "2001:db8::/64").list()).isEmpty();
        assertThat(NameValidation.isValidCidr("f", "10.0.0.0/33").list()).hasSize(1);
        assertThat(NameValidation.isValidCidr("f", "10.0.0.0").list()).hasSize(1);
        assertThat(NameValidation.isValidCidr("f", "10.0.0.0/").list()).hasSize(1);
    }

    @Test
    void checksFullyQualifiedNames() {
        assertThat(NameValidation.isFullyQualifiedName("f", "a.b.c").list()).isEmpty();
        assertThat(NameValidation.isFullyQualifiedName("f", "a.b").list()).extracting(FieldError::detail)
                .containsExactly("should be a domain with at least three segments separated by dots");
        assertThat(NameValidation.isFullyQualifiedName("f", "").list()).extracting(FieldError::message).containsExactly("f: Required value");
    }

    @Test
    void nameValidatorsMaskATrailingDashOfPrefixes() {
        assertThat(NameValidator.DNS_SUBDOMAIN.validate("web-", true)).isEmpty();
        assertThat(NameValidator.DNS_SUBDOMAIN.validate("web-", false)).containsExactly(SUBDOMAIN_MESSAGE);
        assertThat(NameValidator.DNS_LABEL.validate("a.b-", true)).containsExactly("must not contain dots");
        assertThat(NameValidator.DNS1035_LABEL.validate("1a-", true)).hasSize(1);
        assertThat(NameValidator.PATH_SEGMENT.validate("system:node:x", false)).isEmpty();
    }

    @Test
    void isLinearOnHugeInput() {
        String huge = "a".repeat(2_000_000) + "-";
        assertThat(NameValidation.isDns1123Subdomain(huge)).hasSize(2);
        assertThat(NameValidation.isQualifiedName(huge)).hasSize(2);
    }
}
