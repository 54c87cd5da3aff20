package io.k4j.api.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.Test;

class ModelDocumentationTest {
    private static final String GENERATED = """
            package example;

            /**
             * Widget is a made-up type.<br><p> <br><p> It has &lt;two&gt; lines &amp; a star: &#42;.
             */
            @JsonInclude(JsonInclude.Include.NON_NULL)
            @JsonPropertyOrder({
                "size"
            })
            @Generated("io.fabric8.kubernetes.schema.generator.model.ModelGenerator")
            public class Widget implements KubernetesResource
            {
                @JsonProperty("size")
                private Integer size;

                /**
                 * No args constructor for use in serialization
                 */
                public Widget() {
                }

                /**
                 * How large the widget is.
                 */
                @JsonProperty("size")
                public Integer getSize() {
                    return size;
                }

                /**
                 * Widget is a made-up type.<br><p> <br><p> It has &lt;two&gt; lines &amp; a star: &#42;.
                 */
                @JsonProperty("part")
                public Part getPart() {
                    return part;
                }

                /**
                 * How large the widget is, again.
                 */
                @JsonProperty("size")
                public void setSize(Integer size) {
                    this.size = size;
                }
            }
            """;

    @Test
    void readsTheClassAndGetterJavadocAndUndoesTheEscapes() {
        ModelDocumentation.TypeDocumentation documentation = ModelDocumentation.parse(GENERATED, "Widget");

        assertThat(documentation.description()).contains("Widget is a made-up type.\n\nIt has <two> lines & a star: *.");
        // the field documented with its class's own text is fabric8's mistake, not upstream's documentation
        assertThat(documentation.fields()).containsOnlyKeys("size");
        assertThat(documentation.field("size")).contains("How large the widget is.");
    }

    @Test
    void ignoresHandWrittenSources() {
        String handWritten = GENERATED.replace("@Generated(\"io.fabric8.kubernetes.schema.generator.model.ModelGenerator\")", "");

        assertThat(ModelDocumentation.parse(handWritten, "Widget")).isEqualTo(ModelDocumentation.TypeDocumentation.NONE);
    }

    @Test
    void findsTheModelSourcesOnTheClassPath() {
        ModelDocumentation.TypeDocumentation container = ModelDocumentation.shared().of(Container.class);

        assertThat(container.description()).isPresent();
        assertThat(container.fields()).containsKeys("image", "args", "command", "volumeMounts").doesNotContainKey("resources");
        assertThat(container.fields().values()).noneMatch(text -> text.contains("<br><p>") || text.contains("&lt;") || text.contains("&#42;"));
        assertThat(ModelDocumentation.shared().of(Quantity.class)).isEqualTo(ModelDocumentation.TypeDocumentation.NONE);
    }
}
