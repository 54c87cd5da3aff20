package io.k4j.api.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.k4j.api.codec.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldSetTest {
    private static final PathElement SPEC = new PathElement.Field("spec");
    private static final PathElement CONTAINERS = new PathElement.Field("containers");
    private static final PathElement NGINX = new PathElement.Key(List.of(new PathElement.KeyField("name", TextNode.valueOf("nginx"))));
    private static final PathElement IMAGE = new PathElement.Field("image");

    @Test
    void encodesMembersChildrenAndSelfMarkersAsUpstream() {
        FieldSet set = FieldSet.of(List.of(
                List.of(SPEC, CONTAINERS, NGINX),
                List.of(SPEC, CONTAINERS, NGINX, IMAGE),
                List.of(SPEC, CONTAINERS, NGINX, new PathElement.Field("name")),
                List.of(SPEC, new PathElement.Field("replicas")),
                List.of(new PathElement.Field("metadata"), new PathElement.Field("finalizers"), new PathElement.Value(TextNode.valueOf("a")))));

        assertThat(Json.writeString(set.toFieldsV1())).isEqualTo(
                "{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"a\\\"\":{}}},"
                        + "\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"nginx\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}},\"f:replicas\":{}}}");
        assertThat(FieldSet.fromFieldsV1(set.toFieldsV1())).isEqualTo(set);
    }

    @Test
    void parsesEveryElementType() {
        FieldSet set = FieldSet.fromFieldsV1(Json.read("""
                {"f:spec":{"f:ports":{"k:{\\"protocol\\":\\"TCP\\",\\"port\\":80}":{".":{},"f:port":{}}},"f:list":{"i:3":{}}}}
                """));

        PathElement port = new PathElement.Key(List.of(new PathElement.KeyField("port", IntNode.valueOf(80)), new PathElement.KeyField("protocol", TextNode.valueOf("TCP"))));
        assertThat(set.has(List.of(SPEC, new PathElement.Field("ports"), port))).isTrue();
        assertThat(set.has(List.of(SPEC, new PathElement.Field("ports"), port, new PathElement.Field("port")))).isTrue();
        assertThat(set.has(List.of(SPEC, new PathElement.Field("list"), new PathElement.Index(3)))).isTrue();
        assertThat(set.has(List.of(SPEC))).isFalse();
        // key fields are written sorted by name whatever order they came in
        assertThat(Json.writeString(set.toFieldsV1())).contains("k:{\\\"port\\\":80,\\\"protocol\\\":\\\"TCP\\\"}");
    }

    @Test
    void writesDecodedFieldsV1InItsOwnFormWhateverFormItCameIn() {
        List<String[]> cases = List.of(
                new String[] {"{\"f:b\":{},\"f:a\":{}}", "{\"f:a\":{},\"f:b\":{}}"},
                new String[] {"{\"f:a\":{\".\":{}}}", "{\"f:a\":{}}"},
                new String[] {"{\"f:a\":{\"f:x\":{},\".\":{}}}", "{\"f:a\":{\".\":{},\"f:x\":{}}}"},
                new String[] {"{\"f:a\":{\".\":{\"f:y\":{}},\"f:x\":{}}}", "{\"f:a\":{\".\":{},\"f:x\":{}}}"},
                new String[] {"{\".\":{},\"f:a\":{}}", "{\"f:a\":{}}"},
                new String[] {"{\"f:l\":{\"k:{\\\"name\\\": \\\"x\\\"}\":{}}}", "{\"f:l\":{\"k:{\\\"name\\\":\\\"x\\\"}\":{}}}"},
                new String[] {"{\"f:l\":{\"v:1\":{},\"k:{\\\"a\\\":1}\":{}}}", "{\"f:l\":{\"k:{\\\"a\\\":1}\":{},\"v:1\":{}}}"},
                new String[] {"{\"f:l\":{\"v:\\\"\\\\u0041\\\"\":{}}}", "{\"f:l\":{\"v:\\\"A\\\"\":{}}}"},
                new String[] {"{\"f:l\":{\"v:\\\"\\u00e9\\\"\":{},\"v:\\\"a\\\"\":{}}}", "{\"f:l\":{\"v:\\\"a\\\"\":{},\"v:\\\"\\u00e9\\\"\":{}}}"});
        for (String[] example : cases) {
            FieldSet set = FieldSet.fromFieldsV1(Json.read(example[0]));
            assertThat(Json.writeString(set.toFieldsV1())).as(example[0]).isEqualTo(Json.writeString(Json.read(example[1])));
            assertThat(Json.writeString(FieldSet.fromFieldsV1(Json.read(example[1])).toFieldsV1())).as(example[1]).isEqualTo(Json.writeString(Json.read(example[1])));
        }
    }

    @Test
    void encodesADecodedSetAsANewObjectEachTimeAndAgainOnceChanged() {
        FieldSet set = FieldSet.fromFieldsV1(Json.read("{\"f:a\":{},\"f:spec\":{\"f:x\":{}}}"));

        set.toFieldsV1().put("f:z", 1);
        assertThat(Json.writeString(set.toFieldsV1())).isEqualTo("{\"f:a\":{},\"f:spec\":{\"f:x\":{}}}");
        set.insert(List.of(new PathElement.Field("b")));
        assertThat(Json.writeString(set.toFieldsV1())).isEqualTo("{\"f:a\":{},\"f:b\":{},\"f:spec\":{\"f:x\":{}}}");
    }

    @Test
    void overlapsAndContainsAllAgreeWithDifferenceAndUnion() {
        List<FieldSet> sets = List.of(
                new FieldSet(),
                FieldSet.of(List.of(List.of(SPEC))),
                FieldSet.of(List.of(List.of(SPEC, CONTAINERS))),
                FieldSet.of(List.of(List.of(SPEC, CONTAINERS, NGINX), List.of(SPEC, CONTAINERS, NGINX, IMAGE))),
                FieldSet.of(List.of(List.of(SPEC, CONTAINERS, NGINX, IMAGE), List.of(SPEC))),
                FieldSet.of(List.of(List.of(SPEC, CONTAINERS, NGINX, IMAGE), List.of(IMAGE))),
                FieldSet.of(List.of(List.of(SPEC, CONTAINERS, NGINX), List.of(SPEC, CONTAINERS, NGINX, IMAGE), List.of(SPEC), List.of(IMAGE))));
        for (FieldSet left : sets) {
            for (FieldSet right : sets) {
                assertThat(left.overlaps(right)).as(left + " / " + right).isEqualTo(!left.difference(right).equals(left));
                assertThat(left.containsAll(right)).as(left + " / " + right).isEqualTo(left.union(right).equals(left));
                FieldSet removed = left.copy();
                removed.removeAll(right);
                assertThat(removed).as(left + " / " + right).isEqualTo(left.difference(right));
            }
        }
    }

    @Test
    void rejectsMalformedFieldsV1() {
        assertThatThrownBy(() -> FieldSet.fromFieldsV1(Json.read("{\"x:spec\":{}}"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FieldSet.fromFieldsV1(Json.read("{\"f:spec\":1}"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FieldSet.fromFieldsV1(Json.read("[]"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void displaysPathsAsUpstream() {
        assertThat(FieldSet.display(List.of(SPEC, CONTAINERS, NGINX, IMAGE))).isEqualTo(".spec.containers[name=\"nginx\"].image");
        assertThat(FieldSet.display(List.of(new PathElement.Field("finalizers"), new PathElement.Value(TextNode.valueOf("x"))))).isEqualTo(".finalizers[=\"x\"]");
        assertThat(FieldSet.display(List.of(new PathElement.Field("args"), new PathElement.Index(0)))).isEqualTo(".args[0]");
    }

    @Test
    void setOperations() {
        FieldSet left = FieldSet.of(List.of(List.of(SPEC, CONTAINERS, NGINX), List.of(SPEC, CONTAINERS, NGINX, IMAGE), List.of(SPEC, new PathElement.Field("replicas"))));
        FieldSet right = FieldSet.of(List.of(List.of(SPEC, CONTAINERS, NGINX), List.of(SPEC, new PathElement.Field("paused"))));

        assertThat(left.intersection(right).paths()).containsExactly(List.of(SPEC, CONTAINERS, NGINX));
        assertThat(left.difference(right).paths()).containsExactly(List.of(SPEC, new PathElement.Field("replicas")), List.of(SPEC, CONTAINERS, NGINX, IMAGE));
        assertThat(left.recursiveDifference(right).paths()).containsExactly(List.of(SPEC, new PathElement.Field("replicas")));
        assertThat(left.union(right).paths()).hasSize(4);
        assertThat(left.difference(left).isEmpty()).isTrue();
    }

    @Test
    void ordersElementsAsUpstream() {
        PathElement two = new PathElement.Value(IntNode.valueOf(2));
        PathElement ten = new PathElement.Value(IntNode.valueOf(10));
        PathElement text = new PathElement.Value(TextNode.valueOf("a"));
        assertThat(List.of(new PathElement.Index(0), text, ten, NGINX, two, SPEC).stream().sorted().toList())
                .containsExactly(SPEC, NGINX, two, ten, text, new PathElement.Index(0));
    }
}
