package io.k4j.apiserver.admission.plugin.noderestriction;

import static io.k4j.apiserver.admission.AdmissionTesting.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.AdmissionTesting;
import io.k4j.apiserver.admission.FakeRegistry;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeRestrictionTest {
    private static final UserInfo NODE_A = UserInfo.of("system:node:a", List.of("system:nodes", "system:authenticated"));
    private final FakeRegistry registry = new FakeRegistry()
            .with(Resources.PODS, "{\"metadata\":{\"name\":\"here\",\"namespace\":\"default\",\"uid\":\"u1\"},\"spec\":{\"nodeName\":\"a\"}}")
            .with(Resources.PODS, "{\"metadata\":{\"name\":\"there\",\"namespace\":\"default\",\"uid\":\"u2\"},\"spec\":{\"nodeName\":\"b\"}}")
            .with(Resources.NODES, "{\"metadata\":{\"name\":\"a\",\"uid\":\"node-a-uid\"}}");
    private final NodeRestriction plugin = new NodeRestriction(registry);

    private static AdmissionAttributes attributes(Operation operation, io.k4j.api.resource.GroupVersionResource resource, String kind,
            String subresource, String namespace, String name, ObjectNode object, ObjectNode oldObject) {
        return new AdmissionAttributes(operation, AdmissionTesting.type(resource, kind, !namespace.isEmpty()), subresource, namespace, name,
                object, oldObject, NODE_A, false);
    }

    @Test
    void aNodeMayOnlyCreateMirrorPodsBoundToItself() {
        ObjectNode plain = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeName\":\"a\"}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(attributes(Operation.CREATE, Resources.PODS, "Pod", "", "default", "p", plain, null))).getMessage())
                .contains("can only create mirror pods");
        ObjectNode elsewhere = json("{\"metadata\":{\"name\":\"p\",\"annotations\":{\"kubernetes.io/config.mirror\":\"x\"}},\"spec\":{\"nodeName\":\"b\"}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(attributes(Operation.CREATE, Resources.PODS, "Pod", "", "default", "p", elsewhere, null))).code())
                .isEqualTo(403);
        ObjectNode mirror = mirrorPod("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"a\",\"uid\":\"node-a-uid\",\"controller\":true}");
        assertThatCode(() -> plugin.validate(attributes(Operation.CREATE, Resources.PODS, "Pod", "", "default", "p", mirror, null))).doesNotThrowAnyException();
    }

    @Test
    void aMirrorPodMustBeControlledByItsNodeOnly() {
        assertThat(createMirrorPodRejection("")).contains("can only create pods with an owner reference set to itself");
        assertThat(createMirrorPodRejection("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"a\",\"uid\":\"node-a-uid\",\"controller\":true},"
                + "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"b\",\"uid\":\"x\",\"controller\":false}"))
                .contains("can only create pods with a single owner reference set to itself");
        assertThat(createMirrorPodRejection("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"b\",\"uid\":\"node-a-uid\",\"controller\":true}"))
                .contains("can only create pods with an owner reference set to itself");
        assertThat(createMirrorPodRejection("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"a\",\"uid\":\"node-a-uid\"}"))
                .contains("can only create pods with a controller owner reference set to itself");
        assertThat(createMirrorPodRejection("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"a\",\"uid\":\"node-a-uid\",\"controller\":true,\"blockOwnerDeletion\":true}"))
                .contains("must not set blockOwnerDeletion on an owner reference");
        assertThat(createMirrorPodRejection("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"a\",\"uid\":\"old-uid\",\"controller\":true}"))
                .contains("node a UID mismatch: expected node-a-uid got old-uid");
    }

    private static ObjectNode mirrorPod(String ownerReferences) {
        return json("{\"metadata\":{\"name\":\"p\",\"annotations\":{\"kubernetes.io/config.mirror\":\"x\"},\"ownerReferences\":[" + ownerReferences
                + "]},\"spec\":{\"nodeName\":\"a\"}}");
    }

    private String createMirrorPodRejection(String ownerReferences) {
        StatusException rejection = catchThrowableOfType(StatusException.class,
                () -> plugin.validate(attributes(Operation.CREATE, Resources.PODS, "Pod", "", "default", "p", mirrorPod(ownerReferences), null)));
        assertThat(rejection.code()).isEqualTo(403);
        return rejection.getMessage();
    }

    @Test
    void aNodeMayUpdateStatusOnlyOfItsOwnPods() {
        ObjectNode here = registry.storeFor(Resources.PODS).get("default", "here");
        ObjectNode there = registry.storeFor(Resources.PODS).get("default", "there");
        assertThatCode(() -> plugin.validate(attributes(Operation.UPDATE, Resources.PODS, "Pod", "status", "default", "here", here, here))).doesNotThrowAnyException();
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(attributes(Operation.UPDATE, Resources.PODS, "Pod", "status", "default", "there", there, there))).code())
                .isEqualTo(403);
    }

    @Test
    void aNodeMayModifyOnlyItselfAndNotItsTaintsOrRestrictedLabels() {
        ObjectNode other = json("{\"metadata\":{\"name\":\"b\"}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(attributes(Operation.UPDATE, Resources.NODES, "Node", "", "", "b", other, other))).getMessage())
                .contains("is not allowed to modify node \"b\"");
        ObjectNode old = json("{\"metadata\":{\"name\":\"a\"},\"spec\":{}}");
        ObjectNode tainted = json("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(attributes(Operation.UPDATE, Resources.NODES, "Node", "", "", "a", tainted, old))).getMessage())
                .contains("is not allowed to modify taints");
        ObjectNode labelled = json("{\"metadata\":{\"name\":\"a\",\"labels\":{\"node-restriction.kubernetes.io/pool\":\"x\"}}}");
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.validate(attributes(Operation.CREATE, Resources.NODES, "Node", "", "", "a", labelled, null))).getMessage())
                .contains("is not allowed to modify labels: node-restriction.kubernetes.io/pool");
    }

    @Test
    void otherUsersAreNotRestricted() {
        ObjectNode plain = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{}}");
        assertThatCode(() -> plugin.validate(AdmissionTesting.createPod("default", plain))).doesNotThrowAnyException();
    }
}
