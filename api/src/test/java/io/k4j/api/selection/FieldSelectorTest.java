package io.k4j.api.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FieldSelectorTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''                                   | ''",
        "metadata.name=a                      | metadata.name=a",
        "spec.nodeName==n1                    | spec.nodeName=n1",
        "status.phase!=Running,spec.nodeName= | spec.nodeName=,status.phase!=Running",
        "'x=a\\,b'                            | 'x=a\\,b'",
        "'x=a\\=b\\\\c'                       | 'x=a\\=b\\\\c'",
        "'a=b,'                               | a=b",
    })
    void parsesToCanonicalForm(String selector, String canonical) {
        assertThat(FieldSelector.parse(selector).toString()).isEqualTo(canonical);
    }

    @Test
    void unescapesValues() {
        FieldSelector selector = FieldSelector.parse("x=a\\,b\\=c\\\\d");
        assertThat(selector.requirements()).singleElement().satisfies(requirement -> {
            assertThat(requirement.field()).isEqualTo("x");
            assertThat(requirement.equal()).isTrue();
            assertThat(requirement.value()).isEqualTo("a,b=c\\d");
        });
    }

    @Test
    void explainsErrorsInUpstreamsWords() {
        assertThatThrownBy(() -> FieldSelector.parse("metadata.name")).hasMessage("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
        assertThatThrownBy(() -> FieldSelector.parse("x=a\\b")).hasMessage("invalid field selector: invalid escape sequence: \\b");
        assertThatThrownBy(() -> FieldSelector.parse("x=a\\")).hasMessage("invalid field selector: invalid escape sequence: \\");
        assertThatThrownBy(() -> FieldSelector.parse("x=a=b")).hasMessage("invalid field selector: unescaped character in value: 61");
    }

    @Test
    void matchesFieldValuesTreatingMissingAsEmpty() {
        Map<String, String> fields = Map.of("metadata.name", "web", "spec.nodeName", "n1");
        assertThat(FieldSelector.parse("").matches(fields)).isTrue();
        assertThat(FieldSelector.parse("metadata.name=web,spec.nodeName!=n2").matches(fields)).isTrue();
        assertThat(FieldSelector.parse("status.phase=").matches(fields)).isTrue();
        assertThat(FieldSelector.parse("status.phase!=").matches(fields)).isFalse();
        assertThat(FieldSelector.parse("metadata.name=db").matches(fields)).isFalse();
    }

    @Test
    void reportsUnsupportedFieldsAndExactMatches() {
        FieldSelector selector = FieldSelector.parse("metadata.name=a,foo=b");
        assertThat(selector.firstUnsupportedField(Set.of("metadata.name", "metadata.namespace"))).contains("foo");
        assertThat(selector.firstUnsupportedField(Set.of("metadata.name", "foo"))).isEmpty();
        assertThat(selector.requiresExactMatch("metadata.name")).contains("a");
        assertThat(FieldSelector.parse("metadata.name!=a").requiresExactMatch("metadata.name")).isEmpty();
        assertThat(FieldSelector.ofEqualities(Map.of("b", "x,y", "a", "1")).toString()).isEqualTo("a=1,b=x\\,y");
    }
}
