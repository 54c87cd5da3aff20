package io.k4j.api.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.TextNode;
import io.k4j.api.resource.GroupVersionKind;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShapesTest {
    private final Shape.Struct pod = (Shape.Struct) Shapes.builtin().forKind(new GroupVersionKind("", "v1", "Pod")).orElseThrow();
    private final Shape.Struct podSpec = (Shape.Struct) pod.field("spec").orElseThrow();

    @Test
    void listsFollowTheirListTypeOrTheirPatchStrategy() {
        Shape.ListOf containers = (Shape.ListOf) podSpec.field("containers").orElseThrow();
        assertThat(containers.type()).isEqualTo(Shape.ListType.MAP);
        assertThat(containers.keys()).containsExactly("name");

        Shape.ListOf ports = (Shape.ListOf) ((Shape.Struct) containers.items()).field("ports").orElseThrow();
        assertThat(ports.keys()).containsExactly("containerPort", "protocol");
        assertThat(ports.keyDefaults()).isEqualTo(Map.of("protocol", TextNode.valueOf("TCP")));

        Shape.ListOf finalizers = (Shape.ListOf) ((Shape.Struct) pod.field("metadata").orElseThrow()).field("finalizers").orElseThrow();
        assertThat(finalizers.type()).isEqualTo(Shape.ListType.SET);

        assertThat(((Shape.ListOf) podSpec.field("tolerations").orElseThrow()).type()).isEqualTo(Shape.ListType.ATOMIC);
        // a list without any declaration is atomic
        assertThat(((Shape.ListOf) ((Shape.Struct) containers.items()).field("command").orElseThrow()).type()).isEqualTo(Shape.ListType.ATOMIC);
    }

    @Test
    void mapsAndStructsAreGranularUnlessDeclaredAtomic() {
        assertThat(((Shape.MapOf) podSpec.field("nodeSelector").orElseThrow()).atomic()).isTrue();
        assertThat(((Shape.MapOf) ((Shape.Struct) pod.field("metadata").orElseThrow()).field("labels").orElseThrow()).atomic()).isFalse();
        Shape.Struct deploymentSpec = (Shape.Struct) Shapes.builtin().forKind(new GroupVersionKind("apps", "v1", "Deployment"))
                .flatMap(shape -> ((Shape.Struct) shape).field("spec"))
                .orElseThrow();
        assertThat(((Shape.Struct) deploymentSpec.field("selector").orElseThrow()).atomic()).isTrue();
        assertThat(podSpec.atomic()).isFalse();
        assertThat(podSpec.field("noSuchField")).isEmpty();
    }

    @Test
    void scalarTypesAndEmbeddedObjects() {
        Shape.Struct container = (Shape.Struct) ((Shape.ListOf) podSpec.field("containers").orElseThrow()).items();
        Shape.Struct resources = (Shape.Struct) container.field("resources").orElseThrow();
        assertThat(((Shape.MapOf) resources.field("limits").orElseThrow()).values()).isInstanceOf(Shape.Scalar.class);
        assertThat(((Shape.Struct) pod.field("metadata").orElseThrow()).field("creationTimestamp").orElseThrow()).isInstanceOf(Shape.Scalar.class);
        Shape.Struct revision = (Shape.Struct) Shapes.builtin().forKind(new GroupVersionKind("apps", "v1", "ControllerRevision")).orElseThrow();
        assertThat(revision.field("data").orElseThrow()).isInstanceOf(Shape.Deduced.class);
    }
}
