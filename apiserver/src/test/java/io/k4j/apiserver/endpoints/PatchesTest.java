package io.k4j.apiserver.endpoints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import org.junit.jupiter.api.Test;

class PatchesTest {
    private static JsonNode json(String text) throws Exception {
        return Json.mapper().readTree(text);
    }

    @Test
    void mergePatchMergesObjectsRemovesNullsAndReplacesLists() throws Exception {
        JsonNode result = Patches.mergePatch(json("{\"a\":{\"b\":1,\"c\":2},\"l\":[1,2],\"d\":1}"), json("{\"a\":{\"b\":null,\"e\":3},\"l\":[3],\"d\":null}"));

        assertThat(result).isEqualTo(json("{\"a\":{\"c\":2,\"e\":3},\"l\":[3]}"));
    }

    @Test
    void aMergePatchLeavesItsTargetAsItWasUnlessItOwnsItAndBothGiveTheSameResult() throws Exception {
        String target = "{\"a\":{\"b\":1,\"c\":{\"d\":2}},\"s\":\"x\",\"n\":[1]}";
        // Objects merge into objects, replace other values, and lose their nulls where nothing was there to merge into.
        String patch = "{\"a\":{\"c\":{\"d\":null,\"e\":[3]}},\"s\":{\"t\":1,\"u\":null},\"n\":null,\"m\":{\"k\":\"v\"}}";
        JsonNode expected = json("{\"a\":{\"b\":1,\"c\":{\"e\":[3]}},\"s\":{\"t\":1},\"m\":{\"k\":\"v\"}}");

        JsonNode untouched = json(target);
        assertThat(Patches.mergePatch(untouched, json(patch))).isEqualTo(expected);
        assertThat(untouched).isEqualTo(json(target));

        ObjectNode owned = (ObjectNode) json(target);
        JsonNode patchNode = json(patch);
        assertThat(Patches.mergePatchInPlace(owned, patchNode)).isSameAs(owned).isEqualTo(expected);
        // The patch's values were copied in: changing the result leaves the patch, which a retry applies again, alone.
        ((ObjectNode) owned.get("m")).put("k", "changed");
        assertThat(patchNode).isEqualTo(json(patch));

        assertThat(Patches.mergePatchInPlace((ObjectNode) json(target), json("[1]"))).isEqualTo(json("[1]"));
    }

    @Test
    void jsonPatchAppliesOperationsInOrder() throws Exception {
        JsonNode result = Patches.jsonPatch(json("{\"a\":[1,2],\"b\":{\"c\":1}}"), json("""
                [{"op":"add","path":"/a/-","value":3},
                 {"op":"add","path":"/a/0","value":0},
                 {"op":"remove","path":"/b/c"},
                 {"op":"copy","from":"/a/1","path":"/b/x"},
                 {"op":"move","from":"/b/x","path":"/y"},
                 {"op":"replace","path":"/y","value":"z"},
                 {"op":"test","path":"/y","value":"z"},
                 {"op":"add","path":"/k~1l","value":true}]
                """));

        assertThat(result).isEqualTo(json("{\"a\":[0,1,2,3],\"b\":{},\"y\":\"z\",\"k/l\":true}"));
    }

    @Test
    void failingOperationsAreUnprocessable() throws Exception {
        assertThatThrownBy(() -> Patches.jsonPatch(json("{}"), json("[{\"op\":\"remove\",\"path\":\"/missing\"}]")))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(422));
        assertThatThrownBy(() -> Patches.jsonPatch(json("{\"a\":1}"), json("[{\"op\":\"test\",\"path\":\"/a\",\"value\":2}]")))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(422));
        assertThatThrownBy(() -> Patches.jsonPatch(json("{}"), json("{\"op\":\"add\"}")))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(400));
    }
}
