package io.k4j.apiserver.registry.core.secret;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class SecretStrategyTest {
    private final SecretStrategy strategy = new SecretStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void defaultsTypeAndMergesStringData() {
        ObjectNode secret = object("{'metadata':{'name':'s','creationTimestamp':'2026-01-01T00:00:00Z'},'data':{'a':'YQ=='},'stringData':{'b':'hi'}}");
        strategy.applyDefaults(secret);
        assertThat(secret).isEqualTo(object("{'metadata':{'name':'s','creationTimestamp':'2026-01-01T00:00:00Z'},'data':{'a':'YQ==','b':'aGk='},'type':'Opaque'}"));
        assertThat(strategy.tableRow(secret)).containsExactly("s", "Opaque", 2L, "60s");
    }

    @Test
    void rejectsDataThatIsNotBase64() {
        assertThatThrownBy(() -> strategy.applyDefaults(object("{'data':{'a':'ab$c'}}")))
                .hasMessage("Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 2");
    }

    @Test
    void checksKeysAndTypeRequirements() {
        assertThat(messages(strategy.validate(object("{'type':'kubernetes.io/tls','data':{'a b':'YQ==','tls.crt':'YQ=='}}")))).containsExactly(
                "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
                "data[tls.key]: Required value");
    }

    @Test
    void typeIsImmutableAndImmutableSecretsKeepTheirData() {
        ObjectNode old = object("{'type':'Opaque','immutable':true,'data':{'a':'YQ=='}}");
        assertThat(messages(strategy.validateUpdate(object("{'type':'other','immutable':true,'data':{'a':'Yg=='}}"), old))).containsExactly(
                "type: Invalid value: \"other\": field is immutable",
                "data: Forbidden: field is immutable when `immutable` is set");
    }
}
