package io.k4j.apiserver.authorization.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Decision;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NodeAuthorizerTest {
    private static final UserInfo NODE_ONE = UserInfo.of("system:node:n1", List.of("system:nodes", "system:authenticated"));

    private InMemoryRegistry registry;
    private NodeAuthorizer authorizer;

    @BeforeEach
    void setUp() {
        registry = new InMemoryRegistry();
        authorizer = new NodeAuthorizer(registry);
        registry.create("pods", """
                {'metadata':{'name':'web','namespace':'shop'},
                 'spec':{'nodeName':'n1','serviceAccountName':'web-sa','imagePullSecrets':[{'name':'pull'}],
                  'volumes':[{'name':'cfg','configMap':{'name':'web-config'}},
                             {'name':'data','persistentVolumeClaim':{'claimName':'web-data'}},
                             {'name':'tok','projected':{'sources':[{'secret':{'name':'projected-secret'}},{'configMap':{'name':'kube-root-ca.crt'}}]}}],
                  'containers':[{'name':'c','env':[{'name':'P','valueFrom':{'secretKeyRef':{'name':'db-password','key':'p'}}}],
                                 'envFrom':[{'configMapRef':{'name':'env-config'}}]}]}}""");
        registry.create("pods", "{'metadata':{'name':'other','namespace':'shop'},'spec':{'nodeName':'n2','volumes':[{'name':'s','secret':{'secretName':'n2-secret'}}]}}");
        registry.create("persistentvolumeclaims", "{'metadata':{'name':'web-data','namespace':'shop'},'spec':{'volumeName':'pv-1'}}");
    }

    private AuthorizationResult ask(String verb, String group, String resource, String subresource, String namespace, String name) {
        return authorizer.authorize(new AuthorizationAttributes(NODE_ONE, verb, true, group, "v1", resource, subresource, namespace, name, ""));
    }

    private Decision decision(String verb, String group, String resource, String subresource, String namespace, String name) {
        return ask(verb, group, resource, subresource, namespace, name).decision();
    }

    @Test
    void readsOnlyWhatItsPodsUse() {
        for (String secret : List.of("pull", "projected-secret", "db-password")) {
            assertThat(decision("get", "", "secrets", "", "shop", secret)).as(secret).isEqualTo(Decision.ALLOW);
        }
        for (String configMap : List.of("web-config", "kube-root-ca.crt", "env-config")) {
            assertThat(decision("watch", "", "configmaps", "", "shop", configMap)).as(configMap).isEqualTo(Decision.ALLOW);
        }
        assertThat(ask("get", "", "secrets", "", "shop", "n2-secret"))
                .isEqualTo(new AuthorizationResult(Decision.NO_OPINION, "no relationship found between node 'n1' and this object"));
        assertThat(decision("get", "", "secrets", "", "other", "pull")).isEqualTo(Decision.NO_OPINION);
        assertThat(ask("list", "", "secrets", "", "shop", "")).isEqualTo(new AuthorizationResult(Decision.NO_OPINION, "No Object name found"));
        assertThat(ask("update", "", "secrets", "", "shop", "pull")).isEqualTo(new AuthorizationResult(Decision.NO_OPINION, "can only read resources of this type"));
    }

    @Test
    void volumesAndTokensFollowThePods() {
        assertThat(decision("get", "", "persistentvolumeclaims", "", "shop", "web-data")).isEqualTo(Decision.ALLOW);
        assertThat(decision("list", "", "persistentvolumeclaims", "", "shop", "web-data")).isEqualTo(Decision.NO_OPINION);
        assertThat(decision("patch", "", "persistentvolumeclaims", "status", "shop", "web-data")).isEqualTo(Decision.ALLOW);
        assertThat(decision("get", "", "persistentvolumes", "", "", "pv-1")).isEqualTo(Decision.ALLOW);
        assertThat(decision("get", "", "persistentvolumes", "", "", "pv-2")).isEqualTo(Decision.NO_OPINION);
        assertThat(decision("create", "", "serviceaccounts", "token", "shop", "web-sa")).isEqualTo(Decision.ALLOW);
        assertThat(decision("create", "", "serviceaccounts", "token", "shop", "default")).isEqualTo(Decision.NO_OPINION);
    }

    @Test
    void writesOnlyItsOwnNodeLeaseAndPods() {
        assertThat(decision("patch", "", "nodes", "status", "", "n1")).isEqualTo(Decision.ALLOW);
        assertThat(decision("patch", "", "nodes", "status", "", "n2")).isEqualTo(Decision.NO_OPINION);
        assertThat(decision("create", "", "nodes", "", "", "")).isEqualTo(Decision.ALLOW);
        assertThat(decision("get", "", "nodes", "", "", "n1")).isEqualTo(Decision.ALLOW);
        assertThat(decision("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "n1")).isEqualTo(Decision.ALLOW);
        assertThat(decision("create", "coordination.k8s.io", "leases", "", "kube-node-lease", "")).isEqualTo(Decision.ALLOW);
        assertThat(ask("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "n2").reason())
                .isEqualTo("can only access node lease with the same name as the requesting node");
        assertThat(decision("get", "coordination.k8s.io", "leases", "", "kube-system", "n1")).isEqualTo(Decision.NO_OPINION);
        assertThat(decision("update", "", "pods", "status", "shop", "web")).isEqualTo(Decision.ALLOW);
        assertThat(decision("update", "", "pods", "status", "shop", "other")).isEqualTo(Decision.NO_OPINION);
        assertThat(decision("get", "", "pods", "", "shop", "web")).isEqualTo(Decision.ALLOW);
        assertThat(decision("get", "", "pods", "", "shop", "other")).isEqualTo(Decision.NO_OPINION);
        assertThat(decision("watch", "", "pods", "", "", "")).isEqualTo(Decision.ALLOW);
        assertThat(decision("create", "", "events", "", "shop", "")).isEqualTo(Decision.ALLOW);
        assertThat(decision("create", "events.k8s.io", "events", "", "shop", "")).isEqualTo(Decision.NO_OPINION);
        assertThat(decision("delete", "apps", "deployments", "", "shop", "d")).isEqualTo(Decision.NO_OPINION);
    }

    @Test
    void otherUsersGetNoOpinion() {
        UserInfo impostor = UserInfo.of("system:node:n1", List.of("system:authenticated"));
        assertThat(authorizer.authorize(new AuthorizationAttributes(impostor, "get", true, "", "v1", "secrets", "", "shop", "pull", "")))
                .isEqualTo(AuthorizationResult.noOpinion());
        assertThat(NodeAuthorizer.nodeName(NODE_ONE)).contains("n1");
    }
}
