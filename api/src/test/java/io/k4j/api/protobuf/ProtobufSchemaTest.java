package io.k4j.api.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.k4j.api.schema.Definition;
import io.k4j.api.schema.DefinitionKind;
import io.k4j.api.schema.Schemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ProtobufSchemaTest {
    private static final ProtobufSchema SCHEMA = ProtobufSchema.load();
    private static final GoJsonRules RULES = GoJsonRules.load();

    @Test
    void resolvesKindsTheWayUpstreamsSchemeDoes() {
        assertThat(SCHEMA.kind("v1", "ConfigMap")).map(Descriptor::getFullName).contains("k8s.io.api.core.v1.ConfigMap");
        assertThat(SCHEMA.kind("apps/v1", "Deployment")).map(Descriptor::getFullName).contains("k8s.io.api.apps.v1.Deployment");
        assertThat(SCHEMA.kind("rbac.authorization.k8s.io/v1", "ClusterRoleBinding")).map(Descriptor::getFullName)
                .contains("k8s.io.api.rbac.v1.ClusterRoleBinding");
        assertThat(SCHEMA.kind("policy/v1", "Eviction")).map(Descriptor::getFullName).contains("k8s.io.api.policy.v1.Eviction");
        // DeleteOptions is registered in every group version and in meta.k8s.io/v1
        assertThat(SCHEMA.kind("meta.k8s.io/v1", "DeleteOptions")).map(Descriptor::getFullName)
                .contains("k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions");
        assertThat(SCHEMA.kind("v1", "DeleteOptions")).map(Descriptor::getFullName)
                .contains("k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions");
        assertThat(SCHEMA.kind("batch/v1", "DeleteOptions")).map(Descriptor::getFullName)
                .contains("k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions");
        assertThat(SCHEMA.kind("v1", "Status")).map(Descriptor::getFullName).contains("k8s.io.apimachinery.pkg.apis.meta.v1.Status");
        assertThat(SCHEMA.kind("apps/v1", "Status")).isEmpty();
        // nested types are not kinds
        assertThat(SCHEMA.kind("v1", "PodSpec")).isEmpty();
        assertThat(SCHEMA.kind("v2", "ConfigMap")).isEmpty();
        assertThat(SCHEMA.apiVersions()).contains("v1", "apps/v1", "batch/v1", "rbac.authorization.k8s.io/v1", "scheduling.k8s.io/v1",
                "authentication.k8s.io/v1", "authorization.k8s.io/v1", "policy/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1",
                "events.k8s.io/v1", "storage.k8s.io/v1", "autoscaling/v1", "meta.k8s.io/v1");
    }

    @Test
    void everyFieldTheGoRulesNameExistsWithTheRightShape() {
        List<String> problems = new ArrayList<>();
        for (String named : RULES.namedFields()) {
            String message = named.substring(0, named.indexOf('#'));
            String fieldName = named.substring(named.indexOf('#') + 1);
            Descriptor type = SCHEMA.message(message).orElse(null);
            FieldDescriptor field = type == null ? null : type.findFieldByName(fieldName);
            if (field == null) {
                problems.add(named + " does not exist");
            } else if (RULES.isInline(field) ? field.getJavaType() != FieldDescriptor.JavaType.MESSAGE || field.isRepeated()
                    : RULES.presence(field) == GoJsonRules.Presence.POINTER
                            && (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE || field.isRepeated())) {
                // presence already tells whether a message or list is set; only scalars need to be marked pointers
                problems.add(named + " has the wrong shape for its rule");
            }
        }
        assertThat(problems).isEmpty();
    }

    /**
     * The JSON fields each message gives must be the fields of the same type in the fabric8 model, which is
     * generated from upstream's OpenAPI independently of the protobuf files, which catches fields missing from our
     * .proto files, wrong JSON names and missed inline structs. fabric8 follows later releases than 1.32; what it
     * has from them is listed.
     */
    @Test
    void jsonFieldsMatchTheModelOfEveryBuiltinType() {
        // what fabric8 7.9.0 has from Kubernetes 1.33 and later
        Set<String> newerFields = Set.of(
                "k8s.io.api.apps.v1.DeploymentStatus#terminatingReplicas",
                "k8s.io.api.apps.v1.ReplicaSetStatus#terminatingReplicas",
                "k8s.io.api.authentication.v1.TokenRequestSpec#attestations", "k8s.io.api.batch.v1.JobSpec#scheduling",
                "k8s.io.api.core.v1.ClusterTrustBundleProjection#user", "k8s.io.api.core.v1.ConfigMapVolumeSource#defaultUser",
                "k8s.io.api.core.v1.Container#restartPolicyRules", "k8s.io.api.core.v1.ContainerStatus#stopSignal",
                "k8s.io.api.core.v1.DownwardAPIVolumeFile#user", "k8s.io.api.core.v1.DownwardAPIVolumeSource#defaultUser",
                "k8s.io.api.core.v1.EmptyDirVolumeSource#mode", "k8s.io.api.core.v1.EnvVarSource#fileKeyRef",
                "k8s.io.api.core.v1.EphemeralContainer#restartPolicyRules", "k8s.io.api.core.v1.GRPCAction#mode",
                "k8s.io.api.core.v1.HTTPGetAction#protocol", "k8s.io.api.core.v1.KeyToPath#user",
                "k8s.io.api.core.v1.Lifecycle#stopSignal", "k8s.io.api.core.v1.NodeSpec#podPreemptionPolicy",
                "k8s.io.api.core.v1.NodeStatus#declaredFeatures", "k8s.io.api.core.v1.NodeSystemInfo#runningInUserNamespace",
                "k8s.io.api.core.v1.NodeSystemInfo#swap", "k8s.io.api.core.v1.PersistentVolumeClaimStatus#healthStatus",
                "k8s.io.api.core.v1.PodCondition#observedGeneration", "k8s.io.api.core.v1.PodSpec#evictionResponders",
                "k8s.io.api.core.v1.PodSpec#hostnameOverride", "k8s.io.api.core.v1.PodSpec#schedulingGroup",
                "k8s.io.api.core.v1.PodStatus#allocatedResources", "k8s.io.api.core.v1.PodStatus#extendedResourceClaimStatus",
                "k8s.io.api.core.v1.PodStatus#nodeAllocatableResourceClaimStatuses",
                "k8s.io.api.core.v1.PodStatus#observedGeneration", "k8s.io.api.core.v1.PodStatus#resources",
                "k8s.io.api.core.v1.PodStatus#volumeHealth", "k8s.io.api.core.v1.ProjectedVolumeSource#defaultUser",
                "k8s.io.api.core.v1.ResourceHealth#message", "k8s.io.api.core.v1.SecretVolumeSource#defaultUser",
                "k8s.io.api.core.v1.ServiceAccountTokenProjection#user", "k8s.io.api.core.v1.VolumeMount#bindMountOptions",
                "k8s.io.api.core.v1.VolumeMountStatus#volumeStatus", "k8s.io.api.core.v1.VolumeProjection#podCertificate",
                "k8s.io.api.discovery.v1.EndpointHints#forNodes", "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta#shardInfo");
        Set<String> newerTypes = Set.of(
                "k8s.io.api.batch.v1.JobSchedulingConfiguration", "k8s.io.api.core.v1.ContainerExtendedResourceRequest",
                "k8s.io.api.core.v1.ContainerRestartRule", "k8s.io.api.core.v1.ContainerRestartRuleOnExitCodes",
                "k8s.io.api.core.v1.EvictionResponder", "k8s.io.api.core.v1.FieldSelectorRequirement",
                "k8s.io.api.core.v1.FileKeySelector", "k8s.io.api.core.v1.ImageVolumeStatus",
                "k8s.io.api.core.v1.NodeAllocatableMappedResources", "k8s.io.api.core.v1.NodeAllocatableOverheadResources",
                "k8s.io.api.core.v1.NodeAllocatableResourceClaimStatus", "k8s.io.api.core.v1.NodePodPreemptionPolicy",
                "k8s.io.api.core.v1.NodeSwapStatus", "k8s.io.api.core.v1.PodCertificateProjection",
                "k8s.io.api.core.v1.PodExtendedResourceClaimStatus", "k8s.io.api.core.v1.PodSchedulingGroup",
                "k8s.io.api.core.v1.PodVolumeHealth", "k8s.io.api.core.v1.ShardInfo", "k8s.io.api.core.v1.VolumeHealthCondition",
                "k8s.io.api.core.v1.VolumeHealthStatus", "k8s.io.api.core.v1.VolumeStatus", "k8s.io.api.discovery.v1.ForNode");
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Definition> entry : Schemas.builtin().definitions().entrySet()) {
            Definition definition = entry.getValue();
            if (definition.kind() != DefinitionKind.OBJECT || !entry.getKey().startsWith("io.k8s.")) {
                continue;
            }
            String protobufName = "k8s.io." + entry.getKey().substring("io.k8s.".length());
            String protobufPackage = protobufName.substring(0, protobufName.lastIndexOf('.'));
            if (SCHEMA.messages().stream().noneMatch(message -> message.getFile().getPackage().equals(protobufPackage))) {
                continue;
            }
            Descriptor type = SCHEMA.message(protobufName).orElse(null);
            if (type == null) {
                if (!newerTypes.contains(protobufName)) {
                    problems.add(protobufName + " has no message");
                }
                continue;
            }
            Set<String> jsonNames = jsonNames(type);
            Set<String> modelNames = new TreeSet<>(definition.fields().keySet());
            // the type meta of top-level kinds is in the envelope, not in the message
            if (modelNames.contains("apiVersion") && modelNames.contains("kind") && !jsonNames.contains("kind")) {
                jsonNames.add("apiVersion");
                jsonNames.add("kind");
            }
            for (String name : modelNames) {
                if (!jsonNames.contains(name) && !newerFields.contains(protobufName + "#" + name)) {
                    problems.add(protobufName + " lacks " + name);
                }
            }
            for (String name : jsonNames) {
                if (!modelNames.contains(name)) {
                    problems.add(protobufName + " has " + name + " which the model lacks");
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    private static Set<String> jsonNames(Descriptor type) {
        Set<String> names = new TreeSet<>();
        for (FieldDescriptor field : type.getFields()) {
            if (RULES.isInline(field)) {
                names.addAll(jsonNames(field.getMessageType()));
            } else {
                names.add(RULES.jsonName(field));
            }
        }
        return names;
    }
}
