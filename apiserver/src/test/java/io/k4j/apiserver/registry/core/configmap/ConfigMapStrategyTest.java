package io.k4j.apiserver.registry.core.configmap;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class ConfigMapStrategyTest {
    private final ConfigMapStrategy strategy = new ConfigMapStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void keysAreConfigKeysAndUniqueAcrossDataAndBinaryData() {
        ObjectNode configMap = object("{'data':{'a b':'x','shared':'y'},'binaryData':{'shared':'eQ==','..x':'eQ=='}}");
        assertThat(messages(strategy.validate(configMap))).containsExactlyInAnyOrder(
                "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
                "data[shared]: Invalid value: \"shared\": duplicate of key present in binaryData",
                "binaryData[..x]: Invalid value: \"..x\": must not start with '..'");
    }

    @Test
    void limitsTheTotalSize() {
        ObjectNode configMap = object("{'data':{}}");
        ((ObjectNode) configMap.get("data")).put("big", "x".repeat(ConfigMapStrategy.MAX_SIZE));
        assertThat(strategy.validate(configMap).isEmpty()).as("keys do not count").isTrue();
        ((ObjectNode) configMap.get("data")).put("more", "y");
        assertThat(messages(strategy.validate(configMap))).containsExactly(": Too long: must have at most 1048576 bytes");
    }

    @Test
    void immutableConfigMapsKeepTheirDataAndStayImmutable() {
        ObjectNode old = object("{'immutable':true,'data':{'a':'1'}}");
        assertThat(messages(strategy.validateUpdate(object("{'immutable':false,'data':{'a':'2'},'binaryData':{'b':'eQ=='}}"), old))).containsExactly(
                "immutable: Forbidden: field is immutable when `immutable` is set",
                "data: Forbidden: field is immutable when `immutable` is set",
                "binaryData: Forbidden: field is immutable when `immutable` is set");
        assertThat(strategy.validateUpdate(object("{'immutable':true,'data':{'a':'1'},'binaryData':{}}"), old).isEmpty()).isTrue();
        assertThat(strategy.validateUpdate(object("{'data':{'a':'2'}}"), object("{'data':{'a':'1'}}")).isEmpty()).isTrue();
    }

    @Test
    void printsTheNumberOfKeys() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly("Name", "Data", "Age");
        ObjectNode configMap = object("{'metadata':{'name':'cfg','creationTimestamp':'2026-01-01T00:00:00Z'},'data':{'a':'1','b':'2'},'binaryData':{'c':'eQ=='}}");
        assertThat(strategy.tableRow(configMap)).containsExactly("cfg", 3L, "60s");
    }
}
