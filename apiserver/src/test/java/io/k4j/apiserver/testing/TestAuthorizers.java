package io.k4j.apiserver.testing;

import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.authorization.Decision;
import java.util.List;

/** Authorizers for tests of a real apiserver. */
public final class TestAuthorizers {
    /** Masters may do anything; everyone else may only get and list configmaps (not watch them). */
    public static final Authorizer MASTERS_OR_READ_CONFIG_MAPS = attributes -> {
        if (attributes.user().groups().contains(UserInfo.MASTERS_GROUP)) {
            return AuthorizationResult.allow("");
        }
        if (attributes.resource().equals("configmaps") && List.of("get", "list").contains(attributes.verb())) {
            return AuthorizationResult.allow("");
        }
        return new AuthorizationResult(Decision.NO_OPINION, "");
    };

    private TestAuthorizers() {}
}
