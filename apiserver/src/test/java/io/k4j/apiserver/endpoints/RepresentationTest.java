package io.k4j.apiserver.endpoints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.errors.StatusException;
import org.junit.jupiter.api.Test;

class RepresentationTest {
    @Test
    void kubectlGetAsksForTables() {
        Representation representation = Representation.negotiate(
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", true);

        assertThat(representation.kind()).isEqualTo(Representation.Kind.TABLE);
        assertThat(representation.contentType()).isEqualTo("application/json;as=Table;v=v1;g=meta.k8s.io");
    }

    @Test
    void protobufIsSkippedForTheNextAcceptableType() {
        assertThat(Representation.negotiate("application/vnd.kubernetes.protobuf, */*", false)).isEqualTo(Representation.JSON);
        assertThat(Representation.negotiate("application/yaml", false)).isEqualTo(Representation.YAML);
        assertThat(Representation.negotiate(null, false)).isEqualTo(Representation.JSON);
        assertThatThrownBy(() -> Representation.negotiate("application/vnd.kubernetes.protobuf", false))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(406));
    }

    @Test
    void partialObjectMetadataMatchesListOrSingle() {
        assertThat(Representation.negotiate("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", true).kind())
                .isEqualTo(Representation.Kind.PARTIAL_OBJECT_METADATA);
        assertThat(Representation.negotiate("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json", false))
                .isEqualTo(Representation.JSON);
    }
}
