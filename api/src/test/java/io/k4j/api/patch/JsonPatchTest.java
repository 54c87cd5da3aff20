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

class JsonPatchTest {
    private static JsonNode json(String text) {
        return Json.read(text.replace('\'', '"'));
    }

    private static String apply(String document, String patch) {
        return Json.writeString(JsonPatch.parse(patch.replace('\'', '"').getBytes(UTF_8)).applyWithDetail(json(document)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // RFC 6902 appendix A and upstream library cases: document | patch | result
        "{'foo':'bar'} | [{'op':'add','path':'/baz','value':'qux'}] | {'foo':'bar','baz':'qux'}",
        "{'foo':['bar','baz']} | [{'op':'add','path':'/foo/1','value':'qux'}] | {'foo':['bar','qux','baz']}",
        "{'baz':'qux','foo':'bar'} | [{'op':'remove','path':'/baz'}] | {'foo':'bar'}",
        "{'foo':['bar','qux','baz']} | [{'op':'remove','path':'/foo/1'}] | {'foo':['bar','baz']}",
        "{'baz':'qux','foo':'bar'} | [{'op':'replace','path':'/baz','value':'boo'}] | {'baz':'boo','foo':'bar'}",
        "{'foo':{'bar':'baz','waldo':'fred'},'qux':{'corge':'grault'}} | [{'op':'move','from':'/foo/waldo','path':'/qux/thud'}] | {'foo':{'bar':'baz'},'qux':{'corge':'grault','thud':'fred'}}",
        "{'foo':['all','grass','cows','eat']} | [{'op':'move','from':'/foo/1','path':'/foo/3'}] | {'foo':['all','cows','eat','grass']}",
        "{'foo':'bar'} | [{'op':'add','path':'/child','value':{'grandchild':{}}}] | {'foo':'bar','child':{'grandchild':{}}}",
        "{'foo':['bar']} | [{'op':'add','path':'/foo/-','value':['abc','def']}] | {'foo':['bar',['abc','def']]}",
        "{'foo':'bar'} | [{'op':'copy','from':'/foo','path':'/baz'}] | {'foo':'bar','baz':'bar'}",
        "{'a/b':1,'m~n':2} | [{'op':'replace','path':'/a~1b','value':3},{'op':'remove','path':'/m~0n'}] | {'a/b':3}",
        "{'foo':['a','b']} | [{'op':'add','path':'/foo/-1','value':'c'}] | {'foo':['a','b','c']}",
        "{'foo':['a','b']} | [{'op':'remove','path':'/foo/-1'}] | {'foo':['a']}",
        "{'foo':['a','b']} | [{'op':'replace','path':'/foo/-2','value':'z'}] | {'foo':['z','b']}",
        "{'foo':'bar'} | [{'op':'add','path':'/foo','value':null}] | {'foo':null}",
        "{'foo':'bar'} | [{'op':'add','path':'/x'}] | {'foo':'bar','x':null}",
        "{'a':{'b':1}} | [{'op':'test','path':'/a','value':{'b':1.0}}] | {'a':{'b':1}}",
        "{'a':1} | [{'op':'test','path':'/missing','value':null}] | {'a':1}",
        "{'a':1} | null | {'a':1}",
        "{'spec':{'containers':[{'name':'a','image':'x'}]}} | [{'op':'replace','path':'/spec/containers/0/image','value':'y'}] | {'spec':{'containers':[{'name':'a','image':'y'}]}}",
    })
    void appliesOperationsAsUpstream(String document, String patch, String result) {
        assertThat(json(apply(document, patch))).isEqualTo(json(result));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{'foo':'bar'} | [{'op':'add','path':'/baz/bat','value':'qux'}] | add operation does not apply: doc is missing path: \"/baz/bat\"",
        "{'foo':'bar'} | [{'op':'remove','path':'/baz'}] | Unable to remove nonexistent key: baz: missing value",
        "{'foo':'bar'} | [{'op':'replace','path':'/baz','value':1}] | replace operation does not apply: doc is missing key: /baz",
        "{'foo':['a']} | [{'op':'add','path':'/foo/5','value':1}] | Unable to access invalid index: 5",
        "{'foo':['a']} | [{'op':'remove','path':'/foo/1'}] | Unable to access invalid index: 1",
        "{'foo':['a']} | [{'op':'add','path':'/foo/x','value':1}] | value was not a proper array index: 'x'",
        "{'foo':'bar'} | [{'op':'test','path':'/foo','value':'baz'}] | testing value /foo failed",
        "{'foo':'bar'} | [{'op':'test','path':'/missing','value':'baz'}] | testing value /missing failed",
        "{'foo':'bar'} | [{'op':'delete','path':'/foo'}] | Unexpected kind: delete",
        "{'foo':'bar'} | [{'path':'/foo'}] | Unexpected kind: unknown",
        "{'foo':'bar'} | [{'op':'add','value':1}] | operation missing path field",
        "{'foo':'bar'} | [{'op':'move','path':'/x'}] | operation missing from field",
        "{'foo':'bar'} | [{'op':'move','from':'/nope','path':'/x'}] | unable to get nonexistent key: nope",
        "{'foo':'bar'} | [{'op':'add','path':'','value':{}}] | add operation does not apply: doc is missing path: \"\"",
        "{'foo':{'a':1}} | [{'op':'move','from':'/foo','path':'/foo/a/b'}] | move operation does not apply: doc is missing destination path: /foo/a/b",
    })
    void explainsOperationsThatDoNotApply(String document, String patch, String reason) {
        assertThatThrownBy(() -> apply(document, patch)).isInstanceOf(PatchException.class).hasMessage(reason);
    }

    @Test
    void failsWithUpstreamsGeneric422AndLeavesTheDocumentAlone() {
        JsonNode document = json("{'a':1,'b':2}");
        JsonPatch patch = JsonPatch.parse("[{\"op\":\"remove\",\"path\":\"/a\"},{\"op\":\"remove\",\"path\":\"/zzz\"}]".getBytes(UTF_8));
        assertThatThrownBy(() -> patch.apply(document)).isInstanceOfSatisfying(StatusException.class, exception -> {
            assertThat(exception.code()).isEqualTo(422);
            assertThat(exception.getMessage()).isEqualTo("the server rejected our request due to an error in our request");
            assertThat(exception.toStatus().get("reason").textValue()).isEqualTo("Invalid");
        });
        assertThat(document).isEqualTo(json("{'a':1,'b':2}"));
    }

    @Test
    void rejectsBodiesThatAreNotOperationArrays() {
        assertThatThrownBy(() -> JsonPatch.parse("{\"op\":\"add\"}".getBytes(UTF_8)))
                .isInstanceOfSatisfying(StatusException.class, exception -> assertThat(exception.code()).isEqualTo(400))
                .hasMessage("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        assertThatThrownBy(() -> JsonPatch.parse("[1]".getBytes(UTF_8)))
                .hasMessage("json: cannot unmarshal number into Go value of type jsonpatch.Operation");
        assertThatThrownBy(() -> JsonPatch.parse("[{".getBytes(UTF_8)))
                .hasMessage("unexpected end of JSON input");
        String tooMany = "[" + "{\"op\":\"test\",\"path\":\"/a\"},".repeat(JsonPatch.MAX_OPERATIONS) + "{\"op\":\"test\",\"path\":\"/a\"}]";
        assertThatThrownBy(() -> JsonPatch.parse(tooMany.getBytes(UTF_8)))
                .isInstanceOfSatisfying(StatusException.class, exception -> assertThat(exception.code()).isEqualTo(413))
                .hasMessage("The allowed maximum operations in a JSON patch is 10000, got 10001");
    }
}
