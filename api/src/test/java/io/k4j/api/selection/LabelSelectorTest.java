package io.k4j.api.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.codec.Json;
import io.k4j.api.validation.FieldError;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LabelSelectorTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "x=a,y=b,z=c         | x=a,y=b,z=c",
        "''                  | ''",
        "x!=a,y=b            | x!=a,y=b",
        "x=                  | x=",
        "'x= '               | x=",
        "'x=,z= '            | x=,z=",
        "'x= ,z= '           | x=,z=",
        "!x                  | !x",
        "x>1                 | x>1",
        "'x>1,z<5'           | x>1,z<5",
        "z=a,x=b             | x=b,z=a",
        "x==a                | x==a",
        "'x in (b,a),y notin (c)' | 'x in (a,b),y notin (c)'",
        "'x in ()'           | 'x in ()'",
        "'x in (,a)'         | 'x in (,a)'",
        "'x in (a,,b)'       | 'x in (,a,b)'",
        "'  a  ,  !b  '      | a,!b",
        "'in=notin'          | in=notin",
        "example.com/key=Value_1 | example.com/key=Value_1",
    })
    void parsesToCanonicalForm(String selector, String canonical) {
        assertThat(LabelSelector.parse(selector).toString()).isEqualTo(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x=a||y=b", "x==a==b", "!x=a", "x<a", "x>1.5", "x in (a", "x in a", "x=a,", ",x=a", "x notin (a b)", "(", "x=(", "a/b/c", "x=a b"})
    void rejectsMalformedSelectors(String selector) {
        assertThatThrownBy(() -> LabelSelector.parse(selector)).isInstanceOf(SelectorParseException.class);
    }

    @Test
    void explainsErrorsInUpstreamsWords() {
        assertThatThrownBy(() -> LabelSelector.parse("x=a y=b"))
                .hasMessage("found 'y', expected: ',' or 'end of string'");
        assertThatThrownBy(() -> LabelSelector.parse("x=a,"))
                .hasMessage("found '', expected: identifier after ','");
        assertThatThrownBy(() -> LabelSelector.parse("(x"))
                .hasMessage("found '(', expected: !, identifier, or 'end of string'");
        assertThatThrownBy(() -> LabelSelector.parse("!x=a"))
                .hasMessage("found '=', expected: ',' or 'end of string'");
        assertThatThrownBy(() -> LabelSelector.parse("x (a)"))
                .hasMessage("unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
        assertThatThrownBy(() -> LabelSelector.parse("x in a"))
                .hasMessage("unable to parse requirement: found 'a' expected: '('");
        assertThatThrownBy(() -> LabelSelector.parse("x in (a b)"))
                .hasMessage("unable to parse requirement: found 'b', expected: ',' or ')'");
        assertThatThrownBy(() -> LabelSelector.parse("x<a"))
                .hasMessage("unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer");
        assertThatThrownBy(() -> LabelSelector.parse("a/b/c=d"))
                .hasMessageStartingWith("unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of");
        assertThatThrownBy(() -> LabelSelector.parse("app=-bad"))
                .hasMessageStartingWith("unable to parse requirement: values[0][app]: Invalid value: \"-bad\": a valid label must be an empty string");
    }

    @Test
    void matchesLabels() {
        Map<String, String> labels = Map.of("app", "web", "tier", "frontend", "version", "3");
        for (String selector : List.of("", "app=web", "app==web", "app!=db", "app in (web,db)", "app notin (db)", "app", "!missing",
                "version>2", "version<4", "missing!=x", "missing notin (x)", "app=web,tier=frontend")) {
            assertThat(LabelSelector.parse(selector).matches(labels)).as(selector).isTrue();
        }
        for (String selector : List.of("app=db", "app!=web", "app in (db)", "app notin (web)", "missing", "!app", "version>3", "version<3",
                "missing>1", "tier>1", "missing=x", "missing in (x)", "app=web,tier=backend")) {
            assertThat(LabelSelector.parse(selector).matches(labels)).as(selector).isFalse();
        }
        assertThat(LabelSelector.parse("missing=").matches(labels)).isFalse();
    }

    @Test
    void convertsMetaV1LabelSelectors() {
        LabelSelector selector = LabelSelector.fromJson(Json.read("""
                {"matchLabels": {"tier": "web", "app": "x"},
                 "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]},
                                      {"key": "legacy", "operator": "DoesNotExist"}]}"""));
        assertThat(selector.toString()).isEqualTo("app=x,env in (dev,prod),!legacy,tier=web");
        assertThat(selector.matches(Map.of("app", "x", "tier", "web", "env", "prod"))).isTrue();
        assertThat(selector.matches(Map.of("app", "x", "tier", "web", "env", "prod", "legacy", ""))).isFalse();
        assertThat(LabelSelector.fromJson(Json.read("{}")).isEverything()).isTrue();
        assertThat(LabelSelector.fromJson(null).isNothing()).isTrue();
        assertThat(LabelSelector.fromJson(null).matches(Map.of())).isFalse();
        assertThatThrownBy(() -> LabelSelector.fromJson(Json.read("{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"Gt\", \"values\": [\"1\"]}]}")))
                .hasMessage("\"Gt\" is not a valid label selector operator");
        assertThatThrownBy(() -> LabelSelector.fromJson(Json.read("{\"matchExpressions\": [{\"key\": \"a\", \"operator\": \"In\"}]}")))
                .hasMessage("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
    }

    @Test
    void validatesMetaV1LabelSelectorsWithFieldPaths() {
        List<String> messages = LabelSelector.validate(Json.read("""
                {"matchLabels": {"a b": "ok"},
                 "matchExpressions": [{"key": "k", "operator": "In"},
                                      {"key": "k", "operator": "Exists", "values": ["x"]},
                                      {"key": "k", "operator": "Gt", "values": ["bad value"]}]}"""), "spec.selector")
                .list().stream().map(FieldError::message).toList();
        assertThat(messages).hasSize(5);
        assertThat(messages.get(0)).startsWith("spec.selector.matchLabels: Invalid value: \"a b\": name part must consist of");
        assertThat(messages.get(1)).isEqualTo("spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'");
        assertThat(messages.get(2)).isEqualTo("spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        assertThat(messages.get(3)).isEqualTo("spec.selector.matchExpressions[2].operator: Invalid value: \"Gt\": not a valid selector operator");
        assertThat(messages.get(4)).startsWith("spec.selector.matchExpressions[2].values[0]: Invalid value: \"bad value\": a valid label");
    }

    @Test
    void exposesExactMatchesForIndexes() {
        LabelSelector selector = LabelSelector.parse("app=web,tier in (a),env in (a,b)");
        assertThat(selector.requiresExactMatch("app")).contains("web");
        assertThat(selector.requiresExactMatch("tier")).contains("a");
        assertThat(selector.requiresExactMatch("env")).isEmpty();
        assertThat(LabelSelector.ofMatchLabels(Map.of("b", "2", "a", "1")).toString()).isEqualTo("a=1,b=2");
    }
}
