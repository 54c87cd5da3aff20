package io.k4j.api.codec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CodecTest {
    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    @Test
    void keepsPropertyOrderInt64AndExactDecimals() {
        Codec.Decoded decoded = Codec.decode(bytes("{\"z\":1,\"a\":9223372036854775807,\"m\":0.10,\"big\":123456789012345678901234567890,\"e\":1e3}"), Codec.Format.JSON);
        assertThat(decoded.value().fieldNames()).toIterable().containsExactly("z", "a", "m", "big", "e");
        assertThat(decoded.value().get("a").longValue()).isEqualTo(Long.MAX_VALUE);
        assertThat(new String(Codec.encodeJson(decoded.value()), UTF_8))
                .isEqualTo("{\"z\":1,\"a\":9223372036854775807,\"m\":0.10,\"big\":123456789012345678901234567890,\"e\":1E+3}");
        assertThat(decoded.duplicateFields()).isEmpty();
    }

    @Test
    void reportsDuplicateJsonFieldsWithTheirPathAndKeepsTheLastValue() {
        String body = """
                {"apiVersion": "apps/v1", "kind": "Deployment",
                 "spec": {"paused": true, "paused": false,
                   "template": {"spec": {"containers": [{"name": "a"}, {"name": "b", "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}""";
        Codec.Decoded decoded = Codec.decode(bytes(body), Codec.Format.JSON);
        assertThat(decoded.duplicateFields()).containsExactly(
                "duplicate field \"spec.paused\"",
                "duplicate field \"spec.template.spec.containers[1].imagePullPolicy\"");
        assertThat(decoded.value().at("/spec/paused").booleanValue()).isFalse();
        assertThat(decoded.value().at("/spec/template/spec/containers/1/imagePullPolicy").textValue()).isEqualTo("Never");
    }

    @Test
    void reportsDuplicateYamlKeysWithTheirLine() {
        String body = """
                apiVersion: apps/v1
                kind: Deployment
                spec:
                  paused: true
                  paused: false
                """;
        Codec.Decoded decoded = Codec.decode(bytes(body), Codec.Format.YAML);
        assertThat(decoded.duplicateFields()).containsExactly("line 5: key \"paused\" already set in map");
        assertThat(decoded.value().at("/spec/paused").booleanValue()).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''                          | unexpected end of JSON input",
        "{                           | unexpected end of JSON input",
        "bogus                       | invalid character 'b' looking for beginning of value",
        "{\"a\":1,}                  | invalid character '}' looking for beginning of object key string",
        "{\"a\" 1}                   | invalid character '1' after object key",
        "{\"a\":1 \"b\":2}           | invalid character '\"' after object key:value pair",
        "[1 2]                       | invalid character '2' after array element",
        "{} {}                       | invalid character '{' after top-level value",
        "{\"a\":tru}                 | invalid character '}' in literal true (expecting 'e')",
        "{\"a\":nul}                 | invalid character '}' in literal null (expecting 'l')",
        "{\"a\":01}                  | invalid character '1' after object key:value pair",
        "{\"a\":1.}                  | invalid character '}' after decimal point in numeric literal",
        "{\"a\":1e}                  | invalid character '}' in exponent of numeric literal",
        "{\"a\":-}                   | invalid character '}' in numeric literal",
        "{\"a\":\"\\x\"}             | invalid character 'x' in string escape code",
        "{\"a\":\"\\u12g4\"}         | invalid character 'g' in \\u hexadecimal character escape",
        "{'a':1}                     | invalid character '\\'' looking for beginning of object key string",
    })
    void explainsMalformedJsonInGosWords(String body, String goError) {
        assertThatThrownBy(() -> Codec.decode(bytes(body), Codec.Format.JSON))
                .isInstanceOf(DecodeException.class)
                .hasMessage("couldn't get version/kind; json parse error: " + goError);
    }

    @Test
    void explainsControlCharactersInStrings() {
        assertThatThrownBy(() -> Codec.decode(bytes("{\"a\":\"x\ny\"}"), Codec.Format.JSON))
                .hasMessage("couldn't get version/kind; json parse error: invalid character '\\n' in string literal");
    }

    @Test
    void decodeObjectFailsWithUpstreamsBadRequest() {
        assertThatThrownBy(() -> Codec.decodeObject(bytes("bogus\n"), Codec.Format.JSON, "Pod"))
                .isInstanceOfSatisfying(StatusException.class, exception -> {
                    assertThat(exception.code()).isEqualTo(400);
                    assertThat(exception.getMessage()).isEqualTo(
                            "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of value (626f6775730a)");
                });
        assertThatThrownBy(() -> Codec.decodeObject(bytes("[]"), Codec.Format.JSON, "Pod"))
                .hasMessage("the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } (5b5d)");
        assertThatThrownBy(() -> Codec.decodeObject(bytes("{\"kind\": 5, \"metadata\": {\"name\": \"a-very-long-name-indeed\"}}"), Codec.Format.JSON, "Pod"))
                .hasMessage("the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({\"kind\": 5, \"metadata\": {\"name ...)");
        assertThatThrownBy(() -> Codec.decodeObject(new byte[0], Codec.Format.JSON, "Pod"))
                .hasMessage("the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)");
        assertThat(Codec.decodeObject(bytes("{\"kind\":\"Pod\"}"), Codec.Format.JSON, "Pod").value().get("kind").textValue()).isEqualTo("Pod");
        assertThat(Codec.decodeObject(bytes("null"), Codec.Format.JSON, "Pod").value()).isEqualTo(Json.object());
    }

    @Test
    void explainsMalformedYaml() {
        assertThatThrownBy(() -> Codec.decode(bytes("a: b\n  c: d: e\n"), Codec.Format.YAML))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("error converting YAML to JSON: yaml: line ");
    }

    @Test
    void rejectsYamlNumbersWithoutAJsonForm() {
        assertThatThrownBy(() -> Codec.decode(bytes("a: .inf\n"), Codec.Format.YAML))
                .isInstanceOf(DecodeException.class)
                .hasMessageStartingWith("error converting YAML to JSON: ");
    }

    @Test
    void decodesYamlScalarsAsUpstream() {
        JsonNode value = Codec.decode(bytes("""
                replicas: 3
                ratio: 0.5
                name: "007"
                enabled: true
                empty:
                quoted: "true"
                list:
                - a
                - 1
                """), Codec.Format.YAML).value();
        assertThat(value.get("replicas").isIntegralNumber()).isTrue();
        assertThat(value.get("ratio").decimalValue()).isEqualByComparingTo("0.5");
        assertThat(value.get("name").textValue()).isEqualTo("007");
        assertThat(value.get("enabled").booleanValue()).isTrue();
        assertThat(value.get("empty").isNull()).isTrue();
        assertThat(value.get("quoted").textValue()).isEqualTo("true");
        assertThat(value.get("list")).hasSize(2);
    }

    @Test
    void decodesMultiDocumentYamlSkippingEmptyDocuments() {
        List<Codec.Decoded> documents = Codec.decodeYamlDocuments(bytes("""
                ---
                kind: ConfigMap
                ---
                ---
                kind: Secret
                """));
        assertThat(documents).extracting(document -> document.value().get("kind").textValue()).containsExactly("ConfigMap", "Secret");
    }

    @Test
    void aYamlListWrittenItemByItemIsTheYamlOfTheWholeList() throws Exception {
        List<JsonNode> items = List.of(
                Json.read("{\"metadata\":{\"name\":\"a\"},\"kind\":\"ConfigMap\",\"data\":{\"k\":\"line1\\nline2\\n\"}}"),
                Json.read("{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\",\"labels\":{\"n\":\"1\"}}}"));
        for (List<JsonNode> listed : List.of(items, List.<JsonNode>of())) {
            ObjectNode envelope = Json.object();
            envelope.put("kind", "ConfigMapList");
            envelope.put("apiVersion", "v1");
            envelope.putObject("metadata").put("resourceVersion", "12");
            ObjectNode whole = envelope.deepCopy();
            listed.forEach(whole.putArray("items")::add);

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Codec.writeYamlList(out, envelope, listed.iterator());

            assertThat(out.toString(UTF_8)).isEqualTo(Codec.encodeYaml(whole));
        }
    }

    @Test
    void encodesYamlAsUpstreamWithSortedKeys() {
        JsonNode value = Json.read("""
                {"metadata": {"name": "web", "resourceVersion": "123", "labels": {"b": "2", "a": "true"}},
                 "apiVersion": "v1", "kind": "Pod",
                 "spec": {"containers": [{"name": "c", "image": "nginx", "args": ["a", ""]}], "empty": {}, "none": []},
                 "data": {"script": "line1\\nline2\\n"}}""");
        assertThat(Codec.encodeYaml(value)).isEqualTo("""
                apiVersion: v1
                data:
                  script: |
                    line1
                    line2
                kind: Pod
                metadata:
                  labels:
                    a: "true"
                    b: "2"
                  name: web
                  resourceVersion: "123"
                spec:
                  containers:
                  - args:
                    - a
                    - ""
                    image: nginx
                    name: c
                  empty: {}
                  none: []
                """);
    }

    @Test
    void encodesPrettyJsonWithTwoSpaces() {
        assertThat(new String(Codec.encodeJsonPretty(Json.read("{\"a\":{\"b\":[1,2]}}")), UTF_8)).isEqualTo("""
                {
                  "a": {
                    "b": [
                      1,
                      2
                    ]
                  }
                }""");
    }

    @Test
    void recognisesContentTypes() {
        assertThat(Codec.Format.ofContentType("application/json; charset=utf-8")).contains(Codec.Format.JSON);
        assertThat(Codec.Format.ofContentType("application/yaml")).contains(Codec.Format.YAML);
        assertThat(Codec.Format.ofContentType("application/vnd.kubernetes.protobuf")).isEmpty();
        assertThat(Codec.Format.ofContentType(null)).isEmpty();
    }

    @Test
    void decodesDeeplyNestedBodiesWithoutRecursion() {
        String deep = "[".repeat(5000) + "]".repeat(5000);
        assertThat(Codec.decode(bytes(deep), Codec.Format.JSON).value().isArray()).isTrue();
    }

    @Test
    void formatsTimestampsAsUpstream() {
        Instant instant = Instant.parse("2024-01-02T03:04:05.123456789Z");
        assertThat(Timestamps.format(instant)).isEqualTo("2024-01-02T03:04:05Z");
        assertThat(Timestamps.formatMicro(instant)).isEqualTo("2024-01-02T03:04:05.123456Z");
        assertThat(Timestamps.formatMicro(Instant.parse("2024-01-02T03:04:05Z"))).isEqualTo("2024-01-02T03:04:05.000000Z");
        assertThat(Timestamps.parse("2024-01-02T04:04:05+01:00")).isEqualTo(Instant.parse("2024-01-02T03:04:05Z"));
        assertThat(Timestamps.parse("2024-01-02T03:04:05.5Z")).isEqualTo(Instant.parse("2024-01-02T03:04:05.500Z"));
        assertThatThrownBy(() -> Timestamps.parse("yesterday")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesWholeSecondsInUtcAsTheFormatterDoes() {
        for (String text : List.of("2024-01-02T03:04:05Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z", "2023-04-31T00:00:00Z",
                "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2024-13-01T00:00:00Z", "2024-00-01T00:00:00Z", "2024-01-00T00:00:00Z",
                "2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "2024-01-01t03:04:05z", "2024-01-0xT03:04:05Z",
                "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z")) {
            Instant expected;
            try {
                expected = java.time.OffsetDateTime.parse(text, java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
            } catch (java.time.format.DateTimeParseException e) {
                expected = null;
            }
            if (expected == null) {
                assertThatThrownBy(() -> Timestamps.parse(text)).as(text).isInstanceOf(IllegalArgumentException.class);
            } else {
                assertThat(Timestamps.parse(text)).as(text).isEqualTo(expected);
            }
        }
    }

    @Test
    void quotesCharactersAsGo() {
        assertThat(GoJsonSyntax.quoteCharacter('\'')).isEqualTo("'\\''");
        assertThat(GoJsonSyntax.quoteCharacter('"')).isEqualTo("'\"'");
        assertThat(GoJsonSyntax.quoteCharacter('\t')).isEqualTo("'\\t'");
        assertThat(GoJsonSyntax.quoteCharacter('a')).isEqualTo("'a'");
    }
}
