package io.k4j.apiserver.registry.discovery.endpointslice;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class EndpointSliceStrategyTest {
    private final EndpointSliceStrategy strategy = new EndpointSliceStrategy(type("discovery.k8s.io", "endpointslices"), AGES);

    private ObjectNode slice(String addressType, String addresses) {
        ObjectNode object = json("{'metadata': {'name': 'web-abc', 'generation': 3, 'creationTimestamp': '2024-05-01T11:00:00Z'}, 'addressType': '" + addressType + "',"
                + " 'endpoints': [{'addresses': " + addresses + ", 'conditions': {'ready': true}}], 'ports': [{'port': 80}, {'name': 'https', 'port': 443}]}");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsPortNameAndProtocol() {
        ObjectNode object = slice("IPv4", "['10.1.0.4']");

        assertThat(object.at("/ports/0").toString()).isEqualTo("{\"port\":80,\"name\":\"\",\"protocol\":\"TCP\"}");
        assertThat(messages(strategy.validate(object))).isEmpty();
    }

    @Test
    void addressesMustMatchTheAddressType() {
        assertThat(messages(strategy.validate(slice("IPv4", "['10.1.0.300', '127.0.0.1', 'fd00::1']")))).containsExactly(
                "endpoints[0].addresses[0]: Invalid value: \"10.1.0.300\": must be a valid IPv4 address",
                "endpoints[0].addresses[1]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
                "endpoints[0].addresses[2]: Invalid value: \"fd00::1\": must be a valid IPv4 address");
        assertThat(messages(strategy.validate(slice("IPv6", "['fd00::1']")))).isEmpty();
        assertThat(messages(strategy.validate(slice("FQDN", "['web.example.com']")))).isEmpty();
        assertThat(messages(strategy.validate(slice("IPv4", "[]"))))
                .containsExactly("endpoints[0].addresses: Required value: must contain at least 1 address");
    }

    @Test
    void addressTypeIsRequiredKnownAndImmutable() {
        assertThat(messages(strategy.validate(slice("", "['10.1.0.4']")))).containsExactly("addressType: Required value");
        assertThat(messages(strategy.validate(slice("IPX", "['10.1.0.4']"))))
                .containsExactly("addressType: Unsupported value: \"IPX\": supported values: \"FQDN\", \"IPv4\", \"IPv6\"");
        assertThat(messages(strategy.validateUpdate(slice("IPv6", "['fd00::1']"), slice("IPv4", "['10.1.0.4']"))))
                .containsExactly("addressType: Invalid value: \"IPv6\": field is immutable");
    }

    @Test
    void portNamesAreUniqueLabelsWithKnownProtocols() {
        ObjectNode object = slice("IPv4", "['10.1.0.4']");
        ((ObjectNode) object.at("/ports/0")).put("name", "https").put("protocol", "ICMP");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "ports[1].name: Duplicate value: \"https\"");
    }

    @Test
    void anyChangeOutsideMetadataIsANewGeneration() {
        ObjectNode old = slice("IPv4", "['10.1.0.4']");
        ObjectNode relabelled = old.deepCopy();
        ((ObjectNode) relabelled.get("metadata")).putObject("labels").put("a", "b");
        strategy.prepareForUpdate(relabelled, old);
        assertThat(relabelled.at("/metadata/generation").asLong()).isEqualTo(3);

        ObjectNode moved = slice("IPv4", "['10.1.0.5']");
        strategy.prepareForUpdate(moved, old);
        assertThat(moved.at("/metadata/generation").asLong()).isEqualTo(4);
    }

    @Test
    void printsAtMostThreePortsAndEndpoints() {
        assertThat(strategy.tableRow(slice("IPv4", "['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4', '10.1.0.5']")))
                .containsExactly("web-abc", "IPv4", "80,443", "10.1.0.1,10.1.0.2,10.1.0.3 + 2 more...", "60m");
        assertThat(strategy.tableRow(json("{'metadata': {'name': 'empty'}, 'addressType': 'IPv4'}")))
                .containsExactly("empty", "IPv4", "<unset>", "<unset>", "<unknown>");
    }
}
