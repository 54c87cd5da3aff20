package io.k4j.api.patch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MergePatchTest {
    private static JsonNode json(String text) {
        return Json.read(text.replace('\'', '"'));
    }

    @ParameterizedTest(name = "{0} + {1}")
    @CsvSource(delimiter = '|', value = {
        // RFC 7386 appendix A, plus upstream library specifics (null members of new objects dropped, array nulls kept)
        "{'a':'b'}                 | {'a':'c'}                | {'a':'c'}",
        "{'a':'b'}                 | {'b':'c'}                | {'a':'b','b':'c'}",
        "{'a':'b'}                 | {'a':null}               | {}",
        "{'a':'b','b':'c'}         | {'a':null}               | {'b':'c'}",
        "{'a':['b']}               | {'a':'c'}                | {'a':'c'}",
        "{'a':'c'}                 | {'a':['b']}              | {'a':['b']}",
        "{'a':{'b':'c'}}           | {'a':{'b':'d','c':null}} | {'a':{'b':'d'}}",
        "{'a':[{'b':'c'}]}         | {'a':[1]}                | {'a':[1]}",
        "{'e':null}                | {'a':1}                  | {'e':null,'a':1}",
        "{}                        | {'a':{'bb':{'ccc':null}}} | {'a':{'bb':{}}}",
        "{'a':'x'}                 | {'a':{'b':null,'c':1}}   | {'a':{'c':1}}",
        "{'a':{'b':1}}             | {'a':[null,{'x':null}]}  | {'a':[null,{'x':null}]}",
        "{'a':1}                   | {'a':[null,{'x':null}]}  | {'a':[null,{}]}",
        "{'metadata':{'labels':{'a':'1','b':'2'}}} | {'metadata':{'labels':{'a':null,'c':'3'}}} | {'metadata':{'labels':{'b':'2','c':'3'}}}",
        "{'a':1}                   | {}                       | {'a':1}",
        "{'a':1}                   | [1,null]                 | [1,null]",
    })
    void appliesAsUpstream(String document, String patch, String result) {
        assertThat(MergePatch.apply(json(document), json(patch))).isEqualTo(json(result));
    }

    @Test
    void rejectsPatchesThatAreNotObjects() {
        for (String body : new String[] {"null", "5", "\"x\"", "{", ""}) {
            assertThatThrownBy(() -> MergePatch.apply(json("{}"), body.getBytes(UTF_8))).as(body)
                    .isInstanceOfSatisfying(StatusException.class, exception -> assertThat(exception.code()).isEqualTo(400))
                    .hasMessage("Invalid JSON Patch");
        }
    }

    @Test
    void neverModifiesItsInputs() {
        JsonNode document = json("{'a':{'b':1}}");
        JsonNode patch = json("{'a':{'c':{'d':null}}}");
        MergePatch.apply(document, patch);
        assertThat(document).isEqualTo(json("{'a':{'b':1}}"));
        assertThat(patch).isEqualTo(json("{'a':{'c':{'d':null}}}"));
    }

    @Test
    void createsPatchesThatReproduceTheModifiedDocument() {
        JsonNode original = json("{'a':1,'b':{'c':'x','d':[1,2],'e':true},'f':'gone','g':null,'h':1}");
        JsonNode modified = json("{'a':1,'b':{'c':'y','d':[1,2],'e':true},'g':null,'h':1.0,'i':{'j':1}}");
        JsonNode patch = MergePatch.create(original, modified);
        assertThat(patch).isEqualTo(json("{'b':{'c':'y'},'i':{'j':1},'f':null}"));
        assertThat(MergePatch.apply(original, patch)).isEqualTo(json("{'a':1,'b':{'c':'y','d':[1,2],'e':true},'g':null,'h':1,'i':{'j':1}}"));
        assertThat(MergePatch.create(json("{'a':[1]}"), json("{'a':[2]}"))).isEqualTo(json("{'a':[2]}"));
        assertThat(MergePatch.create(json("{'a':'1'}"), json("{'a':1}"))).isEqualTo(json("{'a':1}"));
        assertThat(MergePatch.create(json("{'a':1}"), json("{'a':1}"))).isEqualTo(json("{}"));
    }
}
