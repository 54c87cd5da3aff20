package io.k4j.apiserver.registry.core.limitrange;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.TableColumn;
import org.junit.jupiter.api.Test;

class LimitRangeStrategyTest {
    private final LimitRangeStrategy strategy = new LimitRangeStrategy();

    @Test
    void containerDefaultsFallBackToMaxThenDefaultThenMin() {
        ObjectNode limitRange = object("{'spec':{'limits':["
                + "{'type':'Container','max':{'cpu':'2','memory':'1Gi'},'min':{'cpu':'100m','ephemeral-storage':'1Gi'},'default':{'memory':'512Mi'}},"
                + "{'type':'Pod','max':{'cpu':'4'}}]}}");
        strategy.applyDefaults(limitRange);
        assertThat(limitRange.at("/spec/limits/0/default")).isEqualTo(object("{'memory':'512Mi','cpu':'2'}"));
        assertThat(limitRange.at("/spec/limits/0/defaultRequest")).isEqualTo(object("{'memory':'512Mi','cpu':'2','ephemeral-storage':'1Gi'}"));
        assertThat(limitRange.at("/spec/limits/1").has("default")).isFalse();
        assertThat(limitRange.at("/spec/limits/1").has("defaultRequest")).isFalse();
    }

    @Test
    void reportsUpstreamOrderingMessages() {
        ObjectNode limitRange = object("{'spec':{'limits':[{'type':'Container',"
                + "'min':{'cpu':'1','memory':'2Gi'},'max':{'cpu':'500m','memory':'1Gi'},"
                + "'default':{'memory':'4Gi'},'defaultRequest':{'memory':'5Gi'},'maxLimitRequestRatio':{'memory':'500m'}}]}}");
        assertThat(messages(strategy.validate(limitRange))).containsExactly(
                "spec.limits[0].min[cpu]: Invalid value: \"1\": min value 1 is greater than max value 500m",
                "spec.limits[0].min[memory]: Invalid value: \"2Gi\": min value 2Gi is greater than max value 1Gi",
                "spec.limits[0].defaultRequest[memory]: Invalid value: \"5Gi\": default request value 5Gi is greater than max value 1Gi",
                "spec.limits[0].defaultRequest[memory]: Invalid value: \"5Gi\": default request value 5Gi is greater than default limit value 4Gi",
                "spec.limits[0].default[memory]: Invalid value: \"1Gi\": default value 4Gi is greater than max value 1Gi",
                "spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: \"500m\": ratio 500m is less than 1");
    }

    @Test
    void minAboveTheDefaultsAndRatiosAboveMaxOverMin() {
        ObjectNode limitRange = object("{'spec':{'limits':[{'type':'Container',"
                + "'min':{'cpu':'1'},'max':{'cpu':'2'},'default':{'cpu':'500m'},'defaultRequest':{'cpu':'500m'},'maxLimitRequestRatio':{'cpu':'3'}}]}}");
        assertThat(messages(strategy.validate(limitRange))).containsExactly(
                "spec.limits[0].defaultRequest[cpu]: Invalid value: \"500m\": min value 1 is greater than default request value 500m",
                "spec.limits[0].default[cpu]: Invalid value: \"1\": min value 1 is greater than default value 500m",
                "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"3\": ratio 3 is greater than max/min = 2.000000");
    }

    @Test
    void checksTypesResourceNamesAndPodDefaults() {
        ObjectNode limitRange = object("{'spec':{'limits':["
                + "{'type':'Pod','max':{'gpu':'1'},'default':{'cpu':'1'}},"
                + "{'type':'Pod'},"
                + "{'type':'Node'},"
                + "{'type':'PersistentVolumeClaim','max':{'gpu':'1'}}]}}");
        assertThat(messages(strategy.validate(limitRange))).containsExactly(
                "spec.limits[0].max[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
                "spec.limits[0].max[gpu]: Invalid value: \"gpu\": must be a standard resource for containers",
                "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
                "spec.limits[1].type: Duplicate value: \"Pod\"",
                "spec.limits[2].type: Invalid value: \"Node\": must be a standard limit type or fully qualified",
                "spec.limits[3].max[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
                "spec.limits[3].limits: Required value: either minimum or maximum storage value is required, but neither was provided");
    }

    @Test
    void extendedResourcesMayNotBeOvercommitted() {
        ObjectNode limitRange = object("{'spec':{'limits':[{'type':'Container','default':{'example.com/gpu':'2'},'defaultRequest':{'example.com/gpu':'1'}}]}}");
        assertThat(messages(strategy.validate(limitRange))).containsExactly(
                "spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: \"1\": default value 2 must equal to defaultRequest value 1 in example.com/gpu");
    }

    @Test
    void printsTheCreationTimestamp() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly("Name", "Created At");
        assertThat(strategy.tableRow(object("{'metadata':{'name':'limits','creationTimestamp':'2026-01-01T00:00:00Z'}}")))
                .containsExactly("limits", "2026-01-01T00:00:00Z");
    }
}
