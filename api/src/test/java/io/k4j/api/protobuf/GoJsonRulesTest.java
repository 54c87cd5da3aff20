package io.k4j.api.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class GoJsonRulesTest {
    @Test
    void readsEveryKindOfRule() throws IOException {
        GoJsonRules rules = parse("# comment\n\napi.core.v1.Example *pointer !always ^embedded uID=uid\n");

        assertThat(rules.namedFields()).containsExactlyInAnyOrder("k8s.io.api.core.v1.Example#pointer",
                "k8s.io.api.core.v1.Example#always", "k8s.io.api.core.v1.Example#embedded", "k8s.io.api.core.v1.Example#uID");
    }

    @Test
    void rejectsAFieldListedTwiceAndWordsItCannotRead() {
        assertThatThrownBy(() -> parse("api.core.v1.Example *a !a\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("go-json-fields.txt:1: k8s.io.api.core.v1.Example.a is listed twice");
        assertThatThrownBy(() -> parse("api.core.v1.Example\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("go-json-fields.txt:1: a message needs at least one field");
        assertThatThrownBy(() -> parse("api.core.v1.Example bare\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("go-json-fields.txt:1: cannot read bare");
    }

    private static GoJsonRules parse(String text) throws IOException {
        return GoJsonRules.parse(new BufferedReader(new StringReader(text)));
    }
}
