package io.k4j.apiserver.authentication.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TokenFileAuthenticatorTest {
    private static final String FILE = """
            abc123,alice,uid-1,"dev,ops"

            def456,bob,uid-2
             ghi789, carol,uid-3,admins
            """;

    @Test
    void parsesUpstreamCsvFormat() {
        TokenFileAuthenticator authenticator = TokenFileAuthenticator.parse("tokens.csv", FILE);

        UserInfo alice = authenticator.authenticateToken("abc123", List.of()).orElseThrow().user();
        assertThat(alice).isEqualTo(new UserInfo("alice", "uid-1", List.of("dev", "ops", "system:authenticated"), Map.of()));
        assertThat(authenticator.authenticateToken("def456", List.of()).orElseThrow().user().groups()).containsExactly("system:authenticated");
        assertThat(authenticator.authenticateToken("ghi789", List.of()).orElseThrow().user().name()).isEqualTo("carol");
        assertThat(authenticator.authenticateToken("unknown", List.of())).isEmpty();
    }

    @Test
    void rejectsLinesWithTooFewColumns() {
        assertThatThrownBy(() -> TokenFileAuthenticator.parse("tokens.csv", "abc,alice\n"))
                .hasMessage("token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2");
    }

    @Test
    void bearerHeaderParsing() {
        TokenFileAuthenticator tokens = TokenFileAuthenticator.parse("tokens.csv", FILE);
        BearerTokenAuthenticator authenticator = new BearerTokenAuthenticator(tokens, List.of("api"));

        assertThat(authenticator.authenticate(request("Bearer abc123"))).map(UserInfo::name).contains("alice");
        assertThat(authenticator.authenticate(request("bearer abc123"))).map(UserInfo::name).contains("alice");
        assertThat(authenticator.authenticate(request("Basic abc123"))).isEmpty();
        assertThat(authenticator.authenticate(request("Bearer"))).isEmpty();
        assertThat(authenticator.authenticate(request("Bearer nope"))).isEmpty();
    }

    private static AuthenticationRequest request(String authorization) {
        return new AuthenticationRequest(Map.of("authorization", List.of(authorization)), List.of());
    }
}
