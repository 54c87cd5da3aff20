package io.k4j.api.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemasTest {
    private final Schemas schemas = Schemas.builtin();

    @Test
    void everyServedKindHasATopLevelDefinitionWithItsKind() {
        for (ResourceType type : BuiltinResources.all()) {
            Definition definition = schemas.forKind(type.gvk()).orElseThrow();
            assertThat(definition.groupVersionKinds()).as(type.plural()).contains(type.gvk());
            assertThat(definition.fields()).as(type.plural()).containsKeys("apiVersion", "kind", "metadata");
        }
        assertThat(schemas.definitionName(new GroupVersionKind("", "v1", "Pod"))).isEqualTo("io.k8s.api.core.v1.Pod");
        assertThat(schemas.definitionName(new GroupVersionKind("apps", "v1", "DeploymentList"))).isEqualTo("io.k8s.api.apps.v1.DeploymentList");
        assertThat(schemas.definitionName(new GroupVersionKind("events.k8s.io", "v1", "Event"))).isEqualTo("io.k8s.api.events.v1.Event");
        assertThat(schemas.definitionName(new GroupVersionKind("rbac.authorization.k8s.io", "v1", "Role"))).isEqualTo("io.k8s.api.rbac.v1.Role");
        assertThat(schemas.definitionName(new GroupVersionKind("authentication.k8s.io", "v1", "TokenReview"))).isEqualTo("io.k8s.api.authentication.v1.TokenReview");
    }

    @Test
    void podFieldsHaveUpstreamTypes() {
        Definition pod = schemas.definition("io.k8s.api.core.v1.Pod");
        assertThat(pod.field("metadata").orElseThrow().schema()).isEqualTo(new Schema.Reference(Schemas.OBJECT_META));
        Definition meta = schemas.definition(Schemas.OBJECT_META);
        assertThat(meta.field("creationTimestamp").orElseThrow().schema()).isEqualTo(new Schema.Reference(Schemas.TIME));
        assertThat(meta.field("labels").orElseThrow().schema()).isEqualTo(new Schema.MapOf(new Schema.Scalar(ScalarType.STRING)));
        assertThat(meta.field("generation").orElseThrow().schema()).isEqualTo(new Schema.Scalar(ScalarType.INT64));
        assertThat(meta.field("managedFields").orElseThrow().schema())
                .isEqualTo(new Schema.ArrayOf(new Schema.Reference("io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry")));
        assertThat(schemas.definition("io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry").field("fieldsV1").orElseThrow().schema())
                .isEqualTo(new Schema.Reference(Schemas.FIELDS_V1));

        Definition container = schemas.definition("io.k8s.api.core.v1.Container");
        assertThat(container.field("ports").orElseThrow().schema()).isEqualTo(new Schema.ArrayOf(new Schema.Reference("io.k8s.api.core.v1.ContainerPort")));
        assertThat(schemas.definition("io.k8s.api.core.v1.ContainerPort").field("containerPort").orElseThrow().schema()).isEqualTo(new Schema.Scalar(ScalarType.INT32));
        assertThat(schemas.definition("io.k8s.api.core.v1.ResourceRequirements").field("limits").orElseThrow().schema())
                .isEqualTo(new Schema.MapOf(new Schema.Reference(Schemas.QUANTITY)));
        assertThat(schemas.definition("io.k8s.api.core.v1.ServicePort").field("targetPort").orElseThrow().schema())
                .isEqualTo(new Schema.Reference(Schemas.INT_OR_STRING));
        assertThat(schemas.definition(Schemas.QUANTITY).kind()).isEqualTo(DefinitionKind.QUANTITY);
        assertThat(schemas.definition("io.k8s.api.core.v1.Secret").field("data").orElseThrow().schema())
                .isEqualTo(new Schema.MapOf(new Schema.Scalar(ScalarType.BYTES)));
        assertThat(schemas.definition("io.k8s.api.apps.v1.ControllerRevision").field("data").orElseThrow().schema())
                .isEqualTo(new Schema.Reference(Schemas.RAW_EXTENSION));
        assertThat(schemas.definition("io.k8s.api.coordination.v1.LeaseSpec").field("renewTime").orElseThrow().schema())
                .isEqualTo(new Schema.Reference(Schemas.MICRO_TIME));
    }

    @Test
    void carriesUpstreamMergeMetadata() {
        FieldMetadata containers = schemas.definition("io.k8s.api.core.v1.PodSpec").field("containers").orElseThrow().metadata();
        assertThat(containers.patchStrategy()).isEqualTo("merge");
        assertThat(containers.patchMergeKey()).contains("name");
        assertThat(containers.listType()).contains("map");
        assertThat(containers.listMapKeys()).containsExactly("name");
        FieldMetadata ports = schemas.definition("io.k8s.api.core.v1.Container").field("ports").orElseThrow().metadata();
        assertThat(ports.patchMergeKey()).contains("containerPort");
        assertThat(ports.listMapKeys()).containsExactly("containerPort", "protocol");
        assertThat(schemas.definition("io.k8s.api.core.v1.PodSpec").field("volumes").orElseThrow().metadata().patchStrategy()).isEqualTo("merge,retainKeys");
        assertThat(schemas.definition("io.k8s.api.core.v1.PodSpec").field("tolerations").orElseThrow().metadata().patchStrategies()).isEmpty();
        assertThat(schemas.definition("io.k8s.api.apps.v1.DeploymentSpec").field("strategy").orElseThrow().metadata().patchStrategy()).isEqualTo("retainKeys");
        assertThat(schemas.definition(Schemas.OBJECT_META).field("ownerReferences").orElseThrow().metadata().patchMergeKey()).contains("uid");
        assertThat(schemas.definition(Schemas.OBJECT_META).field("finalizers").orElseThrow().metadata().patchStrategy()).isEqualTo("merge");
    }

    @Test
    void everyTableEntryNamesAnExistingField() {
        for (Map.Entry<String, FieldMetadata> entry : PatchMetadataTable.entries().entrySet()) {
            String[] parts = entry.getKey().split("#");
            Definition definition = schemas.find(parts[0]).orElse(null);
            assertThat(definition).as(entry.getKey()).isNotNull();
            assertThat(definition.fields()).as(entry.getKey()).containsKey(parts[1]);
        }
    }

    @Test
    void closureReachesNestedTypes() {
        assertThat(schemas.closure(java.util.Set.of("io.k8s.api.apps.v1.Deployment")))
                .contains("io.k8s.api.apps.v1.DeploymentSpec", "io.k8s.api.core.v1.PodTemplateSpec", "io.k8s.api.core.v1.Container",
                        Schemas.OBJECT_META, Schemas.TIME, Schemas.QUANTITY)
                .doesNotContain("io.k8s.api.core.v1.Service");
        assertThat(List.copyOf(schemas.definitions().keySet())).isSorted();
    }

    @Test
    void onlyEmbeddedObjectsAreRawExtensions() {
        List<String> raw = new java.util.ArrayList<>();
        for (Definition definition : schemas.definitions().values()) {
            for (Field field : definition.fields().values()) {
                if (field.schema().equals(new Schema.Reference(Schemas.RAW_EXTENSION))) {
                    raw.add(definition.name() + "#" + field.name());
                }
            }
        }
        assertThat(raw).containsExactlyInAnyOrder(
                "io.k8s.api.apps.v1.ControllerRevision#data", Schemas.WATCH_EVENT + "#object");
    }
}
