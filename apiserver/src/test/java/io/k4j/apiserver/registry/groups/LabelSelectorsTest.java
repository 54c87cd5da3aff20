package io.k4j.apiserver.registry.groups;

import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorsTest {
    @Test
    void rendersRequirementsSortedByKey() {
        assertThat(LabelSelectors.render(json("{'matchLabels': {'tier': 'front', 'app': 'web'}, 'matchExpressions': ["
                + "{'key': 'env', 'operator': 'NotIn', 'values': ['prod', 'dev']}, {'key': 'canary', 'operator': 'DoesNotExist'}, {'key': 'zone', 'operator': 'Exists'}]}")))
                .contains("app=web,!canary,env notin (dev,prod),tier=front,zone");
        assertThat(LabelSelectors.format(json("{}"))).isEqualTo("<none>");
        assertThat(LabelSelectors.format(json("{'matchExpressions': [{'key': 'a', 'operator': 'Near'}]}"))).isEqualTo("<error>");
    }

    @Test
    void matchesAsUpstream() {
        Map<String, String> labels = Map.of("app", "web", "env", "dev");
        assertThat(LabelSelectors.matches(json("{'matchLabels': {'app': 'web'}, 'matchExpressions': [{'key': 'env', 'operator': 'In', 'values': ['dev']}]}"), labels)).contains(true);
        assertThat(LabelSelectors.matches(json("{'matchExpressions': [{'key': 'env', 'operator': 'NotIn', 'values': ['dev']}]}"), labels)).contains(false);
        assertThat(LabelSelectors.matches(json("{}"), labels)).contains(true);
        assertThat(LabelSelectors.matches(MissingNode.getInstance(), labels)).contains(false);
    }

    @Test
    void printsSelectorsAsGoPrintsThemInFieldErrors() {
        assertThat(LabelSelectors.goLiteral(json("{'matchLabels': {'tier': 'front', 'app': 'web'}}")))
                .isEqualTo("v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"front\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}");
        assertThat(LabelSelectors.goLiteral(json("{'matchExpressions': [{'key': 'env', 'operator': 'In', 'values': ['a']}, {'key': 'x', 'operator': 'Exists'}]}")))
                .isEqualTo("v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{"
                        + "v1.LabelSelectorRequirement{Key:\"env\", Operator:\"In\", Values:[]string{\"a\"}}, "
                        + "v1.LabelSelectorRequirement{Key:\"x\", Operator:\"Exists\", Values:[]string(nil)}}}");
        assertThat(LabelSelectors.goLiteral(MissingNode.getInstance())).isEqualTo("null");
    }
}
