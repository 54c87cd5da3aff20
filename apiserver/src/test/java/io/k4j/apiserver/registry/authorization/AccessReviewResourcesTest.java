package io.k4j.apiserver.registry.authorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.rbac.RbacAuthorizer;
import io.k4j.apiserver.authorization.rbac.RbacPolicySource;
import io.k4j.apiserver.authorization.testing.InMemoryRegistry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AccessReviewResourcesTest {
    private static final UserInfo BOB = UserInfo.of("bob", List.of("system:authenticated"));

    private RbacAuthorizer authorizer;

    @BeforeEach
    void setUp() {
        InMemoryRegistry registry = new InMemoryRegistry();
        registry.create("clusterroles", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'pod-reader'},'rules':[{'verbs':['get','list'],'apiGroups':[''],'resources':['pods']},{'verbs':['get'],'nonResourceURLs':['/healthz']}]}");
        registry.create("rolebindings", "{'apiVersion':'rbac.authorization.k8s.io/v1','metadata':{'name':'bob-reads','namespace':'team'},'roleRef':{'kind':'ClusterRole','name':'pod-reader'},'subjects':[{'kind':'User','name':'bob'}]}");
        authorizer = new RbacAuthorizer(new RbacPolicySource(registry, Duration.ZERO, InstantSource.system()));
    }

    @Test
    void selfSubjectAccessReviewAnswersCanI() {
        SelfSubjectAccessReviewResource resource = new SelfSubjectAccessReviewResource(authorizer);
        // what `kubectl auth can-i list pods -n team` sends
        ObjectNode allowed = resource.create(InMemoryRegistry.parse("{'kind':'SelfSubjectAccessReview','apiVersion':'authorization.k8s.io/v1','metadata':{'creationTimestamp':null},"
                + "'spec':{'resourceAttributes':{'namespace':'team','verb':'list','resource':'pods'}},'status':{'allowed':false}}"), BOB, "");
        ObjectNode denied = resource.create(InMemoryRegistry.parse("{'spec':{'resourceAttributes':{'namespace':'other','verb':'list','resource':'pods'}}}"), BOB, "");

        assertThat(allowed.path("status")).isEqualTo(InMemoryRegistry.parse("{'allowed':true,'reason':'RBAC: allowed by RoleBinding \\\"bob-reads/team\\\" of ClusterRole \\\"pod-reader\\\" to User \\\"bob\\\"'}"));
        assertThat(denied.path("status").path("allowed").asBoolean()).isFalse();
        assertThat(denied.path("status").has("denied")).isFalse();
        assertThatThrownBy(() -> resource.create(InMemoryRegistry.parse("{'spec':{}}"), BOB, ""))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(422));
    }

    @Test
    void subjectAccessReviewChecksTheSpecUser() {
        SubjectAccessReviewResource resource = new SubjectAccessReviewResource(authorizer);
        UserInfo admin = UserInfo.of("admin", List.of("system:masters"));

        ObjectNode response = resource.create(InMemoryRegistry.parse("{'spec':{'user':'bob','groups':['system:authenticated'],"
                + "'resourceAttributes':{'namespace':'team','verb':'get','resource':'pods','name':'p'}}}"), admin, "");
        ObjectNode nonResource = resource.create(InMemoryRegistry.parse("{'spec':{'user':'bob','nonResourceAttributes':{'path':'/healthz','verb':'get'}}}"), admin, "");

        assertThat(response.path("kind").asText()).isEqualTo("SubjectAccessReview");
        assertThat(response.path("status").path("allowed").asBoolean()).isTrue();
        assertThat(nonResource.path("status").path("allowed").asBoolean()).isFalse();
        assertThatThrownBy(() -> resource.create(InMemoryRegistry.parse("{'spec':{'resourceAttributes':{'verb':'get','resource':'pods'}}}"), admin, ""))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).contains("at least one of user or group must be specified"));
    }

    @Test
    void localSubjectAccessReviewStaysInItsNamespace() {
        LocalSubjectAccessReviewResource resource = new LocalSubjectAccessReviewResource(authorizer);

        ObjectNode response = resource.create(InMemoryRegistry.parse("{'metadata':{'namespace':'team'},'spec':{'user':'bob','resourceAttributes':{'namespace':'team','verb':'list','resource':'pods'}}}"), BOB, "team");

        assertThat(response.path("status").path("allowed").asBoolean()).isTrue();
        assertThatThrownBy(() -> resource.create(InMemoryRegistry.parse("{'spec':{'user':'bob','resourceAttributes':{'namespace':'other','verb':'list','resource':'pods'}}}"), BOB, "team"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("spec.resourceAttributes.namespace must match namespace: team"));
    }

    @Test
    void selfSubjectRulesReviewListsTheRules() {
        SelfSubjectRulesReviewResource resource = new SelfSubjectRulesReviewResource(authorizer);

        JsonNode status = resource.create(InMemoryRegistry.parse("{'spec':{'namespace':'team'}}"), BOB, "").path("status");

        assertThat(status).isEqualTo(InMemoryRegistry.parse("{'resourceRules':[{'verbs':['get','list'],'apiGroups':[''],'resources':['pods']}],"
                + "'nonResourceRules':[{'verbs':['get'],'nonResourceURLs':['/healthz']}],'incomplete':false}"));
        JsonNode elsewhere = resource.create(InMemoryRegistry.parse("{'spec':{'namespace':'other'}}"), BOB, "").path("status");
        assertThat(elsewhere.path("resourceRules")).isEmpty();
        JsonNode node = resource.create(InMemoryRegistry.parse("{'spec':{'namespace':'team'}}"), UserInfo.of("system:node:n1", List.of("system:nodes")), "").path("status");
        assertThat(node.path("incomplete").asBoolean()).isTrue();
        assertThat(node.path("evaluationError").asText()).isEqualTo("node authorizer does not support user rule resolution");
        assertThatThrownBy(() -> resource.create(InMemoryRegistry.parse("{'spec':{}}"), BOB, "")).isInstanceOf(StatusException.class);
    }
}
