package io.k4j.apiserver.filters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import io.k4j.apiserver.endpoints.RequestInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuthorizationFilterTest {
    private static final UserInfo BOB = UserInfo.of("bob", List.of(UserInfo.AUTHENTICATED_GROUP));
    private static final Authorizer NO_OPINION = attributes -> AuthorizationResult.noOpinion();

    private static String message(AuthorizationFilter filter, RequestInfo info) {
        try {
            filter.authorize(BOB, info);
            throw new AssertionError("allowed");
        } catch (StatusException e) {
            assertThat(e.code()).isEqualTo(403);
            return e.getMessage();
        }
    }

    @Test
    void forbiddenMessagesAreUpstreams() {
        AuthorizationFilter filter = new AuthorizationFilter(List.of(NO_OPINION));

        assertThat(message(filter, new RequestInfo(true, "/api/v1/namespaces/default/pods", "list", "api", "", "v1", "default", "pods", "", "")))
                .isEqualTo("pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"");
        assertThat(message(filter, new RequestInfo(true, "/api/v1/namespaces/default/pods/web/log", "get", "api", "", "v1", "default", "pods", "log", "web")))
                .isEqualTo("pods \"web\" is forbidden: User \"bob\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"default\"");
        assertThat(message(filter, new RequestInfo(true, "/apis/rbac.authorization.k8s.io/v1/clusterroles", "create", "apis", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "", "")))
                .isEqualTo("clusterroles.rbac.authorization.k8s.io is forbidden: User \"bob\" cannot create resource \"clusterroles\" in API group \"rbac.authorization.k8s.io\" at the cluster scope");
        assertThat(message(filter, RequestInfo.nonResource("/metrics", "get")))
                .isEqualTo("forbidden: User \"bob\" cannot get path \"/metrics\"");
    }

    @Test
    void firstDecisionWinsAndDenialReasonsAreAppended() {
        Authorizer deny = attributes -> new AuthorizationResult(Decision.DENY, "node may not");
        Authorizer allow = attributes -> AuthorizationResult.allow("");
        RequestInfo info = new RequestInfo(true, "/api/v1/nodes", "list", "api", "", "v1", "", "nodes", "", "");

        assertThatCode(() -> new AuthorizationFilter(List.of(NO_OPINION, allow, deny)).authorize(BOB, info)).doesNotThrowAnyException();
        assertThat(message(new AuthorizationFilter(List.of(deny, allow)), info)).endsWith("at the cluster scope: node may not");
        assertThatThrownBy(() -> new AuthorizationFilter(List.of()).authorize(BOB, info)).isInstanceOf(StatusException.class);
    }
}
