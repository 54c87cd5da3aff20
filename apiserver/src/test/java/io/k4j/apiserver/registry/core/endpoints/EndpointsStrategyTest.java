package io.k4j.apiserver.registry.core.endpoints;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class EndpointsStrategyTest {
    private final EndpointsStrategy strategy = new EndpointsStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void portsDefaultToTcpAndPutMayCreate() {
        ObjectNode endpoints = object("{'subsets':[{'addresses':[{'ip':'10.0.0.1'}],'ports':[{'port':80},{'port':53,'protocol':'UDP'}]}]}");
        strategy.applyDefaults(endpoints);
        assertThat(endpoints.at("/subsets/0/ports")).isEqualTo(object("{'p':[{'port':80,'protocol':'TCP'},{'port':53,'protocol':'UDP'}]}").get("p"));
        assertThat(strategy.allowCreateOnUpdate()).isTrue();
    }

    @Test
    void checksAddressesAndPorts() {
        ObjectNode endpoints = object("{'subsets':[{'ports':[{'port':80,'protocol':'TCP'}]},"
                + "{'addresses':[{'ip':'127.0.0.1'},{'ip':'169.254.1.1'},{'ip':'nope','hostname':'Web'}],'notReadyAddresses':[{'ip':'::'},{'ip':'fe80::1'}],"
                + "'ports':[{'name':'Http','port':0,'protocol':'TCP'},{'port':81,'protocol':'TCP'}]}]}");
        assertThat(messages(strategy.validate(endpoints))).containsExactly(
                "subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
                "subsets[1].addresses[0].ip: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
                "subsets[1].addresses[1].ip: Invalid value: \"169.254.1.1\": may not be in the link-local range (169.254.0.0/16, fe80::/10)",
                "subsets[1].addresses[2].ip: Invalid value: \"nope\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "subsets[1].addresses[2].hostname: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "subsets[1].addresses[2].ip: Invalid value: \"nope\": must be a valid IP address",
                "subsets[1].notReadyAddresses[0].ip: Invalid value: \"::\": may not be unspecified (::)",
                "subsets[1].notReadyAddresses[1].ip: Invalid value: \"fe80::1\": may not be in the link-local range (169.254.0.0/16, fe80::/10)",
                "subsets[1].ports[0].name: Invalid value: \"Http\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "subsets[1].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
                "subsets[1].ports[1].name: Required value");
    }

    @Test
    void printsUpToThreeEndpointsAndHowManyMore() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly("Name", "Endpoints", "Age");
        ObjectNode endpoints = object("{'metadata':{'name':'web','creationTimestamp':'2026-01-01T00:00:00Z'},'subsets':["
                + "{'addresses':[{'ip':'10.0.0.1'},{'ip':'fd00::1'}],'ports':[{'port':80},{'port':443}]}]}");
        assertThat(strategy.tableRow(endpoints)).containsExactly("web", "10.0.0.1:80,[fd00::1]:80,10.0.0.1:443 + 1 more...", "60s");
        assertThat(strategy.tableRow(object("{'metadata':{'name':'headless'},'subsets':[{'addresses':[{'ip':'10.0.0.1'}]}]}")).get(1)).isEqualTo("10.0.0.1");
        assertThat(strategy.tableRow(object("{'metadata':{'name':'empty'}}")).get(1)).isEqualTo("<none>");
    }
}
