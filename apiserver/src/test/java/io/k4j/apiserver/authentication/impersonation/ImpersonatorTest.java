package io.k4j.apiserver.authentication.impersonation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationAttributes;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class ImpersonatorTest {
    private static final UserInfo ADMIN = UserInfo.of("admin", List.of("system:authenticated"));

    private final List<AuthorizationAttributes> asked = new ArrayList<>();

    private Authorizer allowing(Predicate<AuthorizationAttributes> allowed) {
        return attributes -> {
            asked.add(attributes);
            return allowed.test(attributes) ? AuthorizationResult.allow("") : AuthorizationResult.noOpinion();
        };
    }

    @Test
    void noHeadersKeepsTheRequester() {
        assertThat(new Impersonator(allowing(attributes -> false)).impersonate(ADMIN, Map.of("accept", List.of("*/*")))).isSameAs(ADMIN);
        assertThat(Impersonator.requested(Map.of("impersonate-user", List.of("x")))).isTrue();
    }

    @Test
    void impersonatesUserGroupsUidAndExtras() {
        UserInfo user = new Impersonator(allowing(attributes -> true)).impersonate(ADMIN, Map.of(
                "impersonate-user", List.of("jane"),
                "impersonate-group", List.of("dev", "ops"),
                "impersonate-uid", List.of("1234"),
                "impersonate-extra-scopes", List.of("view", "edit"),
                "impersonate-extra-example.com%2fteam", List.of("a")));

        assertThat(user.name()).isEqualTo("jane");
        assertThat(user.uid()).isEqualTo("1234");
        assertThat(user.groups()).containsExactly("dev", "ops", "system:authenticated");
        assertThat(user.extra()).containsEntry("scopes", List.of("view", "edit")).containsEntry("example.com/team", List.of("a"));
        assertThat(asked).extracting(AuthorizationAttributes::verb).containsOnly("impersonate");
        assertThat(asked).extracting(attributes -> attributes.apiGroup() + "|" + attributes.resource() + "|" + attributes.subresource() + "|" + attributes.name())
                .contains("|users||jane", "|groups||dev", "|groups||ops", "authentication.k8s.io|uids||1234",
                        "authentication.k8s.io|userextras|scopes|view", "authentication.k8s.io|userextras|example.com/team|a");
    }

    @Test
    void serviceAccountGetsItsGroupsAndIsCheckedInItsNamespace() {
        UserInfo user = new Impersonator(allowing(attributes -> true)).impersonate(ADMIN, Map.of("impersonate-user", List.of("system:serviceaccount:ci:builder")));

        assertThat(user.groups()).containsExactly("system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated");
        assertThat(asked.get(0).resource()).isEqualTo("serviceaccounts");
        assertThat(asked.get(0).namespace()).isEqualTo("ci");
        assertThat(asked.get(0).name()).isEqualTo("builder");
    }

    @Test
    void anonymousIsUnauthenticated() {
        UserInfo user = new Impersonator(allowing(attributes -> true)).impersonate(ADMIN, Map.of("impersonate-user", List.of("system:anonymous")));

        assertThat(user.groups()).containsExactly("system:unauthenticated");
    }

    @Test
    void deniedImpersonationIsForbiddenWithUpstreamsMessage() {
        Impersonator impersonator = new Impersonator(allowing(attributes -> attributes.resource().equals("users")));

        assertThatThrownBy(() -> impersonator.impersonate(ADMIN, Map.of("impersonate-user", List.of("jane"), "impersonate-group", List.of("system:masters"))))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(403);
                    assertThat(e.getMessage()).isEqualTo("groups \"system:masters\" is forbidden: User \"admin\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope");
                });
    }

    @Test
    void groupsWithoutUserAreAnError() {
        assertThatThrownBy(() -> new Impersonator(allowing(attributes -> true)).impersonate(ADMIN, Map.of("impersonate-group", List.of("dev"))))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(500));
    }
}
