package io.k4j.apiserver.filters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuthenticationFilterTest {
    private static final Authenticator TOKEN = request -> {
        String header = request.header("authorization");
        if (header == null) {
            return Optional.empty();
        }
        if (header.equals("Bearer good")) {
            return Optional.of(UserInfo.of("alice", List.of(UserInfo.AUTHENTICATED_GROUP)));
        }
        throw StatusException.unauthorized();
    };

    private static AuthenticationRequest request(String authorization) {
        return new AuthenticationRequest(authorization == null ? Map.of() : Map.of("authorization", List.of(authorization)), List.of());
    }

    @Test
    void firstAuthenticatorThatRecognisesTheRequestDecides() {
        Authenticator never = request -> Optional.empty();

        assertThat(new AuthenticationFilter(List.of(never, TOKEN), false).authenticate(request("Bearer good")).name()).isEqualTo("alice");
        assertThatThrownBy(() -> new AuthenticationFilter(List.of(TOKEN), true).authenticate(request("Bearer bad")))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(401));
    }

    @Test
    void anonymousOnlyWhenAllowed() {
        assertThat(new AuthenticationFilter(List.of(TOKEN), true).authenticate(request(null))).isEqualTo(AuthenticationFilter.ANONYMOUS);
        assertThatThrownBy(() -> new AuthenticationFilter(List.of(TOKEN), false).authenticate(request(null)))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("Unauthorized"));
    }
}
