package io.k4j.apiserver.authorization.rbac;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyRuleTest {
    private static final UserInfo USER = UserInfo.of("bob", List.of());

    private static AuthorizationAttributes resource(String verb, String group, String resource, String subresource, String name) {
        return new AuthorizationAttributes(USER, verb, true, group, "v1", resource, subresource, "default", name, "");
    }

    private static PolicyRule rule(String json) {
        return PolicyRule.fromJson(InMemoryRegistry.parse(json));
    }

    @ParameterizedTest(name = "{0} on {1}/{2}/{3} name={4} against {5} -> {6}")
    @CsvSource(delimiter = '|', value = {
            "get    | ''   | pods        | ''     | ''    | {'verbs':['get'],'apiGroups':[''],'resources':['pods']}                 | true",
            "list   | ''   | pods        | ''     | ''    | {'verbs':['get'],'apiGroups':[''],'resources':['pods']}                 | false",
            "delete | ''   | pods        | ''     | ''    | {'verbs':['*'],'apiGroups':[''],'resources':['pods']}                   | true",
            "get    | apps | deployments | ''     | ''    | {'verbs':['get'],'apiGroups':[''],'resources':['deployments']}          | false",
            "get    | apps | deployments | ''     | ''    | {'verbs':['get'],'apiGroups':['*'],'resources':['deployments']}         | true",
            "get    | ''   | pods        | log    | ''    | {'verbs':['get'],'apiGroups':[''],'resources':['pods']}                 | false",
            "get    | ''   | pods        | log    | ''    | {'verbs':['get'],'apiGroups':[''],'resources':['pods/log']}             | true",
            "get    | ''   | pods        | ''     | ''    | {'verbs':['get'],'apiGroups':[''],'resources':['pods/log']}             | false",
            "update | apps | deployments | scale  | ''    | {'verbs':['update'],'apiGroups':['*'],'resources':['*/scale']}          | true",
            "update | apps | deployments | status | ''    | {'verbs':['update'],'apiGroups':['*'],'resources':['*/scale']}          | false",
            "update | apps | deployments | ''     | ''    | {'verbs':['update'],'apiGroups':['*'],'resources':['*/scale']}          | false",
            "get    | ''   | pods        | exec   | ''    | {'verbs':['get'],'apiGroups':[''],'resources':['*']}                    | true",
            "get    | ''   | secrets     | ''     | token | {'verbs':['get'],'apiGroups':[''],'resources':['secrets'],'resourceNames':['token']} | true",
            "get    | ''   | secrets     | ''     | other | {'verbs':['get'],'apiGroups':[''],'resources':['secrets'],'resourceNames':['token']} | false",
            "list   | ''   | secrets     | ''     | ''    | {'verbs':['list'],'apiGroups':[''],'resources':['secrets'],'resourceNames':['token']} | false",
    })
    void resourceRules(String verb, String group, String resource, String subresource, String name, String rule, boolean allowed) {
        assertThat(rule(rule).allows(resource(verb, group, resource, subresource, name))).isEqualTo(allowed);
    }

    @ParameterizedTest(name = "{0} {1} against {2} -> {3}")
    @CsvSource(delimiter = '|', value = {
            "get  | /healthz       | {'verbs':['get'],'nonResourceURLs':['/healthz']}  | true",
            "get  | /healthz/etcd  | {'verbs':['get'],'nonResourceURLs':['/healthz']}  | false",
            "get  | /healthz/etcd  | {'verbs':['get'],'nonResourceURLs':['/healthz/*']} | true",
            "get  | /apis/apps/v1  | {'verbs':['get'],'nonResourceURLs':['/apis/*']}   | true",
            "post | /apis          | {'verbs':['get'],'nonResourceURLs':['/apis']}     | false",
            "get  | /anything      | {'verbs':['*'],'nonResourceURLs':['*']}           | true",
            "get  | /api           | {'verbs':['get'],'apiGroups':['*'],'resources':['*']} | false",
    })
    void nonResourceRules(String verb, String path, String rule, boolean allowed) {
        assertThat(rule(rule).allows(new AuthorizationAttributes(USER, verb, false, "", "", "", "", "", "", path))).isEqualTo(allowed);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{'verbs':['get'],'apiGroups':[''],'resources':['pods']}",
            "{'verbs':['get'],'nonResourceURLs':['/healthz']}",
            "{'verbs':['approve'],'apiGroups':['certificates.k8s.io'],'resources':['signers'],'resourceNames':['kubernetes.io/x']}",
    })
    void jsonRoundTrips(String json) {
        PolicyRule rule = rule(json);
        assertThat(PolicyRule.fromJson(rule.toJson())).isEqualTo(rule);
        assertThat(rule.toJson()).isEqualTo(InMemoryRegistry.parse(json));
    }
}
