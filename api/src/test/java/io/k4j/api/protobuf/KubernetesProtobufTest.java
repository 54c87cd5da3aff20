package io.k4j.api.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.api.resource.GroupVersionKind;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class KubernetesProtobufTest {
    private static final ProtobufSchema SCHEMA = ProtobufSchema.load();

    /**
     * A ConfigMap as client-go's gogo marshaller writes it, encoded by hand from the wire format and upstream's
     * field numbers (not by our encoder): gogo writes every non-pointer string even when empty, the zero
     * {@code generation}, and the zero {@code creationTimestamp} as an empty message.
     */
    private static final String CONFIG_MAP_FROM_CLIENT_GO = String.join("",
            "6b387300", // k8s\0
            "0a0f", // Unknown.typeMeta (1), 15 bytes
            "0a027631", // TypeMeta.apiVersion (1) "v1"
            "1209436f6e6669674d6170", // TypeMeta.kind (2) "ConfigMap"
            "1223", // Unknown.raw (2), 35 bytes: the ConfigMap
            "0a19", // ConfigMap.metadata (1), 25 bytes
            "0a02636d", // ObjectMeta.name (1) "cm"
            "1200", // generateName (2) ""
            "1a0764656661756c74", // namespace (3) "default"
            "2200", // selfLink (4) ""
            "2a00", // uid (5) ""
            "3200", // resourceVersion (6) ""
            "3800", // generation (7) 0
            "4200", // creationTimestamp (8): zero Time, empty message
            "1206", // ConfigMap.data (2): one map entry, 6 bytes
            "0a0161", // key (1) "a"
            "120162", // value (2) "b"
            "1a00", // Unknown.contentEncoding (3) ""
            "2200"); // Unknown.contentType (4) ""

    /** A Deployment by hand: a pointer set to zero and an IntOrString string, as gogo writes them. */
    private static final String DEPLOYMENT_FROM_CLIENT_GO = String.join("",
            "6b387300",
            "0a15", "0a07617070732f7631", "120a4465706c6f796d656e74", // apps/v1 Deployment
            "1227", // raw, 39 bytes
            "0a03", "0a0164", // metadata.name "d"
            "1220", // Deployment.spec (2), 32 bytes
            "0800", // DeploymentSpec.replicas (1) = 0, a *int32
            "221c", // DeploymentSpec.strategy (4), 28 bytes
            "0a0d526f6c6c696e67557064617465", // DeploymentStrategy.type (1) "RollingUpdate"
            "120b", // DeploymentStrategy.rollingUpdate (2), 11 bytes
            "1209", // RollingUpdateDeployment.maxSurge (2), 9 bytes
            "0801", "1000", "1a03323525", // IntOrString type (1) = 1 (string), intVal (2) = 0, strVal (3) "25%"
            "1a00", "2200");

    @Test
    void decodesABodyAsClientGoWritesItIntoTheJsonKubectlWouldSend() {
        ObjectNode decoded = KubernetesProtobuf.decode(HexFormat.of().parseHex(CONFIG_MAP_FROM_CLIENT_GO));

        // empty strings and the zero generation are left out as Go's omitempty does; the zero time is null
        assertThat(decoded.toString()).isEqualTo(
                "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\","
                        + "\"creationTimestamp\":null},\"data\":{\"a\":\"b\"}}");
    }

    @Test
    void keepsPointersSetToZeroAndReadsIntOrStrings() {
        ObjectNode decoded = KubernetesProtobuf.decode(HexFormat.of().parseHex(DEPLOYMENT_FROM_CLIENT_GO));

        assertThat(decoded.toString()).isEqualTo(
                "{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\",\"metadata\":{\"name\":\"d\"},"
                        + "\"spec\":{\"replicas\":0,\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%\"}}}}");
    }

    @Test
    void encodesByteForByteWhatTheWireFormatPrescribes() {
        ObjectNode configMap = object("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\"},"
                + "\"data\":{\"a\":\"b\"}}");

        assertThat(HexFormat.of().formatHex(KubernetesProtobuf.encode(configMap))).isEqualTo(String.join("",
                "6b387300",
                "0a0f", "0a027631", "1209436f6e6669674d6170",
                "1217", // raw, 23 bytes
                "0a0d", "0a02636d", "1a0764656661756c74", // metadata: name, namespace
                "1206", "0a0161", "120162", // data
                "1a00", "2200"));
    }

    @Test
    void roundTripsConfigMap() {
        assertRoundTrip("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cfg\",\"namespace\":\"default\","
                + "\"labels\":{\"app\":\"x\"},\"annotations\":{\"note\":\"\"}},\"immutable\":true,\"data\":{\"a\":\"1\",\"b\":\"two words\"},"
                + "\"binaryData\":{\"raw\":\"3q2+7w==\"}}");
    }

    @Test
    void carriesSecretDataAsBytesAndShowsThemAsBase64() {
        ObjectNode secret = assertRoundTrip("{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"s\",\"namespace\":\"default\"},"
                + "\"data\":{\"bin\":\"AAEC/w==\",\"text\":\"aGVsbG8=\"},\"type\":\"Opaque\"}");

        DynamicMessage message = raw(secret, "k8s.io.api.core.v1.Secret");
        DynamicMessage entry = (DynamicMessage) message.getRepeatedField(message.getDescriptorForType().findFieldByName("data"), 0);
        assertThat(entry.getField(entry.getDescriptorForType().findFieldByName("key"))).isEqualTo("bin");
        assertThat(((ByteString) entry.getField(entry.getDescriptorForType().findFieldByName("value"))).toByteArray())
                .containsExactly(0, 1, 2, 0xff);
    }

    @Test
    void roundTripsDeploymentWithTemplateQuantitiesAndIntOrStrings() {
        ObjectNode deployment = assertRoundTrip("{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\",\"metadata\":{\"name\":\"web\","
                + "\"labels\":{\"app\":\"web\"}},\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
                + "\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:1.27\","
                + "\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],\"env\":[{\"name\":\"MODE\",\"value\":\"prod\"},"
                + "{\"name\":\"POD\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}],"
                + "\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"128Mi\"},\"requests\":{\"cpu\":\"250m\"}},"
                + "\"livenessProbe\":{\"httpGet\":{\"path\":\"/\",\"port\":\"http\"},\"periodSeconds\":10}}],"
                + "\"volumes\":[{\"name\":\"config\",\"configMap\":{\"name\":\"cfg\",\"defaultMode\":420}}]}},"
                + "\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":1,\"maxSurge\":\"25%\"}}},\"status\":{}}");

        // Probe.handler and Volume.volumeSource are inline in Go: their fields sit on the parent in JSON
        DynamicMessage message = raw(deployment, "k8s.io.api.apps.v1.Deployment");
        assertThat(message.toString()).contains("handler {", "volumeSource {", "localObjectReference {");
    }

    @Test
    void canonicalisesQuantitiesAsUpstreamDoes() {
        ObjectNode quota = object("{\"kind\":\"ResourceQuota\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"q\"},"
                + "\"spec\":{\"hard\":{\"cpu\":\"0.5\",\"memory\":\"1024Mi\"}}}");

        ObjectNode decoded = KubernetesProtobuf.decode(KubernetesProtobuf.encode(quota));

        assertThat(decoded.at("/spec/hard/cpu").asText()).isEqualTo("500m");
        assertThat(decoded.at("/spec/hard/memory").asText()).isEqualTo("1Gi");
    }

    @Test
    void roundTripsJobAndCronJob() {
        assertRoundTrip("{\"kind\":\"Job\",\"apiVersion\":\"batch/v1\",\"metadata\":{\"name\":\"pi\",\"namespace\":\"default\"},"
                + "\"spec\":{\"parallelism\":1,\"backoffLimit\":0,\"ttlSecondsAfterFinished\":100,\"template\":{\"metadata\":{},"
                + "\"spec\":{\"containers\":[{\"name\":\"pi\",\"image\":\"perl\",\"command\":[\"perl\",\"-e\",\"print 1\"],\"resources\":{}}],"
                + "\"restartPolicy\":\"Never\"}}},\"status\":{}}");
        assertRoundTrip("{\"kind\":\"CronJob\",\"apiVersion\":\"batch/v1\",\"metadata\":{\"name\":\"tick\",\"namespace\":\"default\"},"
                + "\"spec\":{\"schedule\":\"*/1 * * * *\",\"suspend\":false,\"jobTemplate\":{\"metadata\":{\"name\":\"tick\"},"
                + "\"spec\":{\"template\":{\"metadata\":{},\"spec\":{\"containers\":[{\"name\":\"tick\",\"image\":\"busybox\","
                + "\"resources\":{}}],\"restartPolicy\":\"OnFailure\"}}}}},\"status\":{}}");
    }

    @Test
    void roundTripsRbacObjects() {
        assertRoundTrip("{\"kind\":\"Role\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"metadata\":{\"name\":\"reader\","
                + "\"namespace\":\"default\"},\"rules\":[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"],"
                + "\"resourceNames\":[\"a\"]}]}");
        assertRoundTrip("{\"kind\":\"ClusterRole\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"metadata\":{\"name\":\"agg\"},"
                + "\"rules\":[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\"]}],\"aggregationRule\":{\"clusterRoleSelectors\":"
                + "[{\"matchExpressions\":[{\"key\":\"rbac.example.com/aggregate\",\"operator\":\"Exists\"}]}]}}");
        assertRoundTrip("{\"kind\":\"RoleBinding\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"metadata\":{\"name\":\"rb\","
                + "\"namespace\":\"default\"},\"subjects\":[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"alice\"},"
                + "{\"kind\":\"ServiceAccount\",\"name\":\"default\",\"namespace\":\"default\"}],"
                + "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\"reader\"}}");
        assertRoundTrip("{\"kind\":\"ClusterRoleBinding\",\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"metadata\":{\"name\":\"crb\"},"
                + "\"subjects\":[{\"kind\":\"Group\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"devs\"}],"
                + "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"agg\"}}");
    }

    @Test
    void roundTripsQuotaPriorityClassNamespaceAndServiceAccount() {
        assertRoundTrip("{\"kind\":\"ResourceQuota\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"q\",\"namespace\":\"default\"},"
                + "\"spec\":{\"hard\":{\"cpu\":\"1\",\"pods\":\"10\",\"requests.memory\":\"1Gi\"},\"scopes\":[\"NotTerminating\"]},\"status\":{}}");
        // value has no omitempty in Go, so a zero value stays
        assertRoundTrip("{\"kind\":\"PriorityClass\",\"apiVersion\":\"scheduling.k8s.io/v1\",\"metadata\":{\"name\":\"low\"},"
                + "\"value\":0,\"globalDefault\":true,\"description\":\"lowest\",\"preemptionPolicy\":\"Never\"}");
        assertRoundTrip("{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"team\"},\"spec\":{},\"status\":{}}");
        // a *bool set to false is kept
        assertRoundTrip("{\"kind\":\"ServiceAccount\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"robot\",\"namespace\":\"default\"},"
                + "\"imagePullSecrets\":[{\"name\":\"registry\"}],\"automountServiceAccountToken\":false}");
    }

    @Test
    void roundTripsServiceWithNumericAndNamedTargetPorts() {
        ObjectNode service = assertRoundTrip("{\"kind\":\"Service\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"web\"}},"
                + "\"spec\":{\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\",\"port\":80,\"targetPort\":8080},"
                + "{\"name\":\"admin\",\"protocol\":\"TCP\",\"port\":81,\"targetPort\":\"admin\",\"nodePort\":30081}],"
                + "\"selector\":{\"app\":\"web\"},\"type\":\"NodePort\",\"sessionAffinity\":\"None\"},\"status\":{\"loadBalancer\":{}}}");

        assertThat(service.at("/spec/ports/0/targetPort").isInt()).isTrue();
        assertThat(service.at("/spec/ports/1/targetPort").isTextual()).isTrue();
    }

    @Test
    void roundTripsTokenRequestWithItsRenamedUidField() {
        ObjectNode tokenRequest = assertRoundTrip("{\"kind\":\"TokenRequest\",\"apiVersion\":\"authentication.k8s.io/v1\","
                + "\"metadata\":{\"name\":\"robot\",\"namespace\":\"default\"},\"spec\":{\"audiences\":[\"https://kubernetes.default.svc\"],"
                + "\"expirationSeconds\":3600,\"boundObjectRef\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"name\":\"p\",\"uid\":\"1234\"}},"
                + "\"status\":{\"token\":\"\"}}");

        // the protobuf field is named uID upstream while the JSON says uid
        assertThat(raw(tokenRequest, "k8s.io.api.authentication.v1.TokenRequest").toString()).contains("uID: \"1234\"");
    }

    @Test
    void roundTripsTheReviewsKubectlAuthSends() {
        assertRoundTrip("{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":\"authorization.k8s.io/v1\",\"metadata\":{},"
                + "\"spec\":{\"resourceAttributes\":{\"namespace\":\"default\",\"verb\":\"create\",\"resource\":\"pods\"}},"
                + "\"status\":{\"allowed\":false}}");
        assertRoundTrip("{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":\"authorization.k8s.io/v1\",\"metadata\":{},"
                + "\"spec\":{\"nonResourceAttributes\":{\"path\":\"/logs\",\"verb\":\"get\"}},\"status\":{\"allowed\":false}}");
        assertRoundTrip("{\"kind\":\"SelfSubjectRulesReview\",\"apiVersion\":\"authorization.k8s.io/v1\",\"metadata\":{},"
                + "\"spec\":{\"namespace\":\"default\"},\"status\":{\"resourceRules\":null,\"nonResourceRules\":null,\"incomplete\":false}}");
        assertRoundTrip("{\"kind\":\"SelfSubjectReview\",\"apiVersion\":\"authentication.k8s.io/v1\",\"metadata\":{},"
                + "\"status\":{\"userInfo\":{\"username\":\"alice\",\"groups\":[\"devs\"],\"extra\":{\"scopes\":[\"a\",\"b\"]}}}}");
    }

    @Test
    void roundTripsDeleteOptionsUnderEveryGroupItIsRegisteredIn() {
        for (String apiVersion : new String[] {"meta.k8s.io/v1", "v1", "apps/v1", "batch/v1"}) {
            assertRoundTrip("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"" + apiVersion + "\",\"gracePeriodSeconds\":0,"
                    + "\"preconditions\":{\"uid\":\"u-1\",\"resourceVersion\":\"42\"},\"propagationPolicy\":\"Foreground\",\"dryRun\":[\"All\"]}");
        }
    }

    @Test
    void roundTripsEvictionAndDropsTheNestedTypeMetaGoLeavesOutOfProtobuf() {
        assertRoundTrip("{\"kind\":\"Eviction\",\"apiVersion\":\"policy/v1\",\"metadata\":{\"name\":\"web-1\",\"namespace\":\"default\"},"
                + "\"deleteOptions\":{\"gracePeriodSeconds\":30}}");

        ObjectNode withTypeMeta = object("{\"kind\":\"Eviction\",\"apiVersion\":\"policy/v1\",\"metadata\":{\"name\":\"web-1\"},"
                + "\"deleteOptions\":{\"kind\":\"DeleteOptions\",\"apiVersion\":\"policy/v1\",\"gracePeriodSeconds\":30}}");
        assertThat(KubernetesProtobuf.decode(KubernetesProtobuf.encode(withTypeMeta)).at("/deleteOptions").toString())
                .isEqualTo("{\"gracePeriodSeconds\":30}");
    }

    @Test
    void writesTimesAsUpstreamDoes() {
        assertRoundTrip("{\"kind\":\"Lease\",\"apiVersion\":\"coordination.k8s.io/v1\",\"metadata\":{\"name\":\"node-1\","
                + "\"namespace\":\"kube-node-lease\",\"creationTimestamp\":\"2024-01-02T03:04:05Z\"},\"spec\":{\"holderIdentity\":\"node-1\","
                + "\"leaseDurationSeconds\":40,\"renewTime\":\"2024-01-02T03:04:05.123456Z\"}}");
        assertRoundTrip("{\"kind\":\"Event\",\"apiVersion\":\"events.k8s.io/v1\",\"metadata\":{\"name\":\"e\",\"namespace\":\"default\"},"
                + "\"eventTime\":\"2024-05-06T07:08:09.000001Z\",\"reportingController\":\"k4j\",\"reportingInstance\":\"k4j-1\","
                + "\"action\":\"Bind\",\"reason\":\"Scheduled\",\"regarding\":{\"kind\":\"Pod\",\"name\":\"p\"},\"note\":\"bound\",\"type\":\"Normal\"}");

        // metav1.Time has whole seconds in JSON: sub-second parts are cut, not rounded
        ObjectNode precise = object("{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n\","
                + "\"creationTimestamp\":\"2024-01-02T03:04:05.999Z\"}}");
        assertThat(KubernetesProtobuf.decode(KubernetesProtobuf.encode(precise)).at("/metadata/creationTimestamp").asText())
                .isEqualTo("2024-01-02T03:04:05Z");
    }

    @Test
    void keepsManagedFieldsAsJson() {
        assertRoundTrip("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\",\"managedFields\":[{\"manager\":\"kubectl\","
                + "\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2024-01-02T03:04:05Z\",\"fieldsType\":\"FieldsV1\","
                + "\"fieldsV1\":{\"f:data\":{\".\":{},\"f:a\":{}}}}]},\"data\":{\"a\":\"b\"}}");
    }

    @Test
    void decodesEmbeddedObjectsInJsonAndInProtobuf() {
        ObjectNode configMap = object("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"inner\"},\"data\":{\"k\":\"v\"}}");
        // a List whose item holds the nested object as protobuf, as upstream embeds objects in protobuf lists and watch events
        Descriptor list = SCHEMA.message("k8s.io.api.core.v1.List").orElseThrow();
        Descriptor rawExtension = SCHEMA.message("k8s.io.apimachinery.pkg.runtime.RawExtension").orElseThrow();
        DynamicMessage item = DynamicMessage.newBuilder(rawExtension)
                .setField(rawExtension.findFieldByName("raw"), ByteString.copyFrom(KubernetesProtobuf.encode(configMap)))
                .build();
        DynamicMessage listMessage = DynamicMessage.newBuilder(list).addRepeatedField(list.findFieldByName("items"), item).build();
        byte[] body = envelope("v1", "List", listMessage.toByteArray());

        assertThat(KubernetesProtobuf.decode(body).at("/items/0")).isEqualTo(configMap);
        // and a RawExtension given as JSON stays JSON
        assertRoundTrip("{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[" + configMap + "]}");
    }

    @Test
    void leavesOutZeroValuesOfOmitEmptyFieldsButKeepsPointersAndRequiredFields() {
        Descriptor servicePort = SCHEMA.message("k8s.io.api.core.v1.ServicePort").orElseThrow();
        Descriptor serviceSpec = SCHEMA.message("k8s.io.api.core.v1.ServiceSpec").orElseThrow();
        Descriptor service = SCHEMA.message("k8s.io.api.core.v1.Service").orElseThrow();
        DynamicMessage port = DynamicMessage.newBuilder(servicePort)
                .setField(servicePort.findFieldByName("name"), "") // omitempty: left out
                .setField(servicePort.findFieldByName("appProtocol"), "") // *string: kept
                .setField(servicePort.findFieldByName("port"), 0) // no omitempty: kept
                .setField(servicePort.findFieldByName("nodePort"), 0) // omitempty: left out
                .build();
        DynamicMessage spec = DynamicMessage.newBuilder(serviceSpec).addRepeatedField(serviceSpec.findFieldByName("ports"), port).build();
        DynamicMessage message = DynamicMessage.newBuilder(service).setField(service.findFieldByName("spec"), spec).build();

        ObjectNode decoded = KubernetesProtobuf.decode(envelope("v1", "Service", message.toByteArray()));

        assertThat(decoded.at("/spec/ports/0").toString()).isEqualTo("{\"appProtocol\":\"\",\"port\":0}");
    }

    @Test
    void takesAMissingKindOrVersionFromTheDefaults() {
        ObjectNode configMap = object("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\"}}");
        byte[] bare = envelope("", "", raw(configMap, "k8s.io.api.core.v1.ConfigMap").toByteArray());

        assertThat(KubernetesProtobuf.decode(bare, new GroupVersionKind("", "v1", "ConfigMap"))).isEqualTo(configMap);
        assertBadRequest(bare, "Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:\"\", Kind:\"\"}'");
        assertBadRequest(envelope("", "ConfigMap", new byte[0]), "Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:\"\", Kind:\"ConfigMap\"}'");
    }

    @Test
    void rejectsMalformedBodiesWithUpstreamsMessages() {
        assertBadRequest(new byte[0], "empty data");
        assertBadRequest("{\"kind\":\"ConfigMap\"}".getBytes(), "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
        assertBadRequest(new byte[] {'k', '8', 's', 0}, "empty body");
        assertBadRequest(envelope("v1", "Gizmo", new byte[0]),
                "no kind \"Gizmo\" is registered for version \"v1\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
        byte[] configMap = HexFormat.of().parseHex(CONFIG_MAP_FROM_CLIENT_GO);
        assertThatThrownBy(() -> KubernetesProtobuf.decode(Arrays.copyOf(configMap, configMap.length - 20)))
                .isInstanceOfSatisfying(StatusException.class, exception -> {
                    assertThat(exception.reason()).isEqualTo(StatusReason.BAD_REQUEST);
                    assertThat(exception.getMessage()).startsWith("proto: ");
                });
        // ConfigMap.metadata (field 1) sent as a varint instead of a message
        assertBadRequest(envelope("v1", "ConfigMap", new byte[] {0x08, 0x01}), "proto: wrong wireType for field ConfigMap.metadata");
        // a quantity that does not parse
        Descriptor quotaSpec = SCHEMA.message("k8s.io.api.core.v1.ResourceQuotaSpec").orElseThrow();
        Descriptor quantity = SCHEMA.message("k8s.io.apimachinery.pkg.api.resource.Quantity").orElseThrow();
        Descriptor hardEntry = quotaSpec.findFieldByName("hard").getMessageType();
        DynamicMessage badQuantity = DynamicMessage.newBuilder(quantity).setField(quantity.findFieldByName("string"), "lots").build();
        DynamicMessage spec = DynamicMessage.newBuilder(quotaSpec).addRepeatedField(quotaSpec.findFieldByName("hard"),
                DynamicMessage.newBuilder(hardEntry).setField(hardEntry.findFieldByName("key"), "cpu")
                        .setField(hardEntry.findFieldByName("value"), badQuantity).build()).build();
        Descriptor quota = SCHEMA.message("k8s.io.api.core.v1.ResourceQuota").orElseThrow();
        byte[] body = envelope("v1", "ResourceQuota",
                DynamicMessage.newBuilder(quota).setField(quota.findFieldByName("spec"), spec).build().toByteArray());
        assertBadRequest(body, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }

    @Test
    void refusesToEncodeWhatTheMessageCannotHold() {
        assertThatThrownBy(() -> KubernetesProtobuf.encode(object("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"spec\":{}}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("spec: k8s.io.api.core.v1.ConfigMap has no such field");
        assertThatThrownBy(() -> KubernetesProtobuf.encode(object("{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\",\"spec\":{\"replicas\":\"3\"}}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("spec.replicas: expected a 32-bit integer, got string \"3\"");
        assertThatThrownBy(() -> KubernetesProtobuf.encode(object("{\"kind\":\"Gizmo\",\"apiVersion\":\"v1\"}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no protobuf message for kind Gizmo in v1");
        assertThatThrownBy(() -> KubernetesProtobuf.encode(object("{\"metadata\":{}}")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recognisesTheProtobufMediaType() {
        assertThat(KubernetesProtobuf.isProtobuf("application/vnd.kubernetes.protobuf")).isTrue();
        assertThat(KubernetesProtobuf.isProtobuf("Application/Vnd.Kubernetes.Protobuf; charset=utf-8")).isTrue();
        assertThat(KubernetesProtobuf.isProtobuf("application/json")).isFalse();
        assertThat(KubernetesProtobuf.isProtobuf("application/vnd.kubernetes.protobuf.extra")).isFalse();
        assertThat(KubernetesProtobuf.isProtobuf(null)).isFalse();
    }

    /** Encodes the JSON, checks the envelope, decodes it again and expects the same JSON back. */
    private static ObjectNode assertRoundTrip(String json) {
        ObjectNode object = object(json);
        byte[] body = KubernetesProtobuf.encode(object);

        assertThat(Arrays.copyOf(body, 4)).containsExactly('k', '8', 's', 0);
        ObjectNode decoded = KubernetesProtobuf.decode(body);
        assertThat(decoded).isEqualTo(object);
        assertThat(decoded.fieldNames().next()).isEqualTo("kind");
        return decoded;
    }

    /** The object's own message, parsed from the raw bytes of the envelope our encoder wrote. */
    private static DynamicMessage raw(ObjectNode object, String messageName) {
        try {
            byte[] body = KubernetesProtobuf.encode(object);
            DynamicMessage unknown = DynamicMessage.parseFrom(SCHEMA.unknown(), Arrays.copyOfRange(body, 4, body.length));
            ByteString raw = (ByteString) unknown.getField(SCHEMA.unknown().findFieldByName("raw"));
            return DynamicMessage.parseFrom(SCHEMA.message(messageName).orElseThrow(), raw);
        } catch (com.google.protobuf.InvalidProtocolBufferException exception) {
            throw new AssertionError(exception);
        }
    }

    private static byte[] envelope(String apiVersion, String kind, byte[] raw) {
        Descriptor unknown = SCHEMA.unknown();
        Descriptor typeMeta = unknown.findFieldByName("typeMeta").getMessageType();
        DynamicMessage message = DynamicMessage.newBuilder(unknown)
                .setField(unknown.findFieldByName("typeMeta"), DynamicMessage.newBuilder(typeMeta)
                        .setField(typeMeta.findFieldByName("apiVersion"), apiVersion)
                        .setField(typeMeta.findFieldByName("kind"), kind)
                        .build())
                .setField(unknown.findFieldByName("raw"), ByteString.copyFrom(raw))
                .build();
        byte[] bytes = message.toByteArray();
        byte[] body = new byte[bytes.length + 4];
        body[0] = 'k';
        body[1] = '8';
        body[2] = 's';
        System.arraycopy(bytes, 0, body, 4, bytes.length);
        return body;
    }

    private static void assertBadRequest(byte[] body, String message) {
        assertThatThrownBy(() -> KubernetesProtobuf.decode(body))
                .isInstanceOfSatisfying(StatusException.class, exception -> {
                    assertThat(exception.reason()).isEqualTo(StatusReason.BAD_REQUEST);
                    assertThat(exception.code()).isEqualTo(400);
                    assertThat(exception.getMessage()).isEqualTo(message);
                });
    }

    private static ObjectNode object(String json) {
        JsonNode node = Json.read(json);
        return (ObjectNode) node;
    }
}
