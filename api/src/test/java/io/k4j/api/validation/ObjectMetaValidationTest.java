package io.k4j.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObjectMetaValidationTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static ObjectNode object(String json) {
        try {
            return (ObjectNode) MAPPER.readTree(json.replace('\'', '"'));
        } catch (Exception exception) {
            throw new IllegalArgumentException(exception);
        }
    }

    private static List<String> messages(FieldErrors errors) {
        return errors.list().stream().map(FieldError::message).toList();
    }

    @Test
    void acceptsAValidObject() {
        ObjectNode pod = object("""
                {'metadata': {'name': 'web-1', 'namespace': 'default', 'labels': {'app': 'web', 'example.com/tier': ''},
                 'annotations': {'Example.com/Note': 'x'}, 'finalizers': ['example.com/cleanup'],
                 'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': 'web', 'uid': 'u1', 'controller': true}]}}""");
        assertThat(ObjectMetaValidation.validateCreate(pod, true, NameValidator.DNS_SUBDOMAIN).list()).isEmpty();
    }

    @Test
    void requiresANameAndANamespace() {
        assertThat(messages(ObjectMetaValidation.validateCreate(object("{}"), true, NameValidator.DNS_SUBDOMAIN)))
                .containsExactly("metadata.name: Required value: name or generateName is required", "metadata.namespace: Required value");
    }

    @Test
    void forbidsANamespaceOnClusterScopedResources() {
        assertThat(messages(ObjectMetaValidation.validateCreate(object("{'metadata': {'name': 'n1', 'namespace': 'default'}}"), false, NameValidator.DNS_SUBDOMAIN)))
                .containsExactly("metadata.namespace: Forbidden: not allowed on this type");
    }

    @Test
    void reportsBadNamesWithTheirRule() {
        FieldErrors errors = ObjectMetaValidation.validateCreate(object("{'metadata': {'name': 'Web_1', 'generateName': 'Web_', 'namespace': 'Bad.NS'}}"), true, NameValidator.DNS_SUBDOMAIN);
        assertThat(errors.list()).extracting(FieldError::field).containsExactly("metadata.generateName", "metadata.name", "metadata.namespace");
        assertThat(errors.list().get(1).message()).isEqualTo(
                "metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
        assertThat(errors.list().get(2).type().causeType()).isEqualTo("FieldValueInvalid");
    }

    @Test
    void acceptsAGenerateNameEndingInADash() {
        assertThat(ObjectMetaValidation.validateCreate(object("{'metadata': {'generateName': 'web-', 'name': 'web-x7k2p', 'namespace': 'ns'}}"), true, NameValidator.DNS_SUBDOMAIN).list()).isEmpty();
    }

    @Test
    void validatesLabels() {
        FieldErrors errors = ObjectMetaValidation.validateCreate(object("{'metadata': {'name': 'a', 'labels': {'a/b/c': 'x', 'ok': 'bad value'}}}"), false, NameValidator.DNS_SUBDOMAIN);
        assertThat(errors.list()).extracting(FieldError::field).containsExactly("metadata.labels", "metadata.labels");
        assertThat(errors.list()).extracting(FieldError::badValue).containsExactly("a/b/c", "bad value");
    }

    @Test
    void validatesAnnotationKeysCaseInsensitivelyAndTheirTotalSize() {
        assertThat(ObjectMetaValidation.validateAnnotations(object("{'A.B/C': 'x'}"), "metadata.annotations").list()).isEmpty();
        assertThat(ObjectMetaValidation.validateAnnotations(object("{'a b': 'x'}"), "metadata.annotations").list()).hasSize(1);
        ObjectNode big = MAPPER.createObjectNode();
        big.put("a", "x".repeat(ObjectMetaValidation.TOTAL_ANNOTATION_SIZE_LIMIT_BYTES - 1));
        assertThat(ObjectMetaValidation.validateAnnotations(big, "metadata.annotations").list()).isEmpty();
        big.put("a", "x".repeat(ObjectMetaValidation.TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
        assertThat(messages(ObjectMetaValidation.validateAnnotations(big, "metadata.annotations")))
                .containsExactly("metadata.annotations: Too long: must have at most 262144 bytes");
    }

    @Test
    void validatesOwnerReferences() {
        FieldErrors errors = ObjectMetaValidation.validateOwnerReferences(MAPPER.valueToTree(List.of(
                java.util.Map.of("apiVersion", "apps/", "kind", "", "name", "", "uid", ""),
                java.util.Map.of("apiVersion", "v1", "kind", "Event", "name", "e", "uid", "1"))), "metadata.ownerReferences");
        assertThat(messages(errors)).containsExactly(
                "metadata.ownerReferences.apiVersion: Invalid value: \"apps/\": version must not be empty",
                "metadata.ownerReferences.kind: Invalid value: \"\": must not be empty",
                "metadata.ownerReferences.name: Invalid value: \"\": must not be empty",
                "metadata.ownerReferences.uid: Invalid value: \"\": must not be empty",
                "metadata.ownerReferences: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"1\"}: /v1, Kind=Event is disallowed from being an owner".replace("{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"1\"}", errors.list().get(4).badValue().toString()));
    }

    @Test
    void allowsOnlyOneControllerReference() {
        FieldErrors errors = ObjectMetaValidation.validateOwnerReferences(object("""
                {'r': [{'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': 'a', 'uid': '1', 'controller': true},
                       {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': 'b', 'uid': '2', 'controller': true}]}""").get("r"), "metadata.ownerReferences");
        assertThat(errors.list()).singleElement().extracting(FieldError::detail)
                .isEqualTo("Only one reference can have Controller set to true. Found \"true\" in references for ReplicaSet/a and ReplicaSet/b");
    }

    @Test
    void validatesFinalizers() {
        FieldErrors errors = ObjectMetaValidation.validateFinalizers(object("{'f': ['orphan', 'foregroundDeletion', 'a/b/c']}").get("f"), "metadata.finalizers");
        assertThat(messages(errors)).hasSize(2).last().isEqualTo(
                "metadata.finalizers: Invalid value: []string{\"orphan\", \"foregroundDeletion\", \"a/b/c\"}: finalizer orphan and foregroundDeletion cannot be both set");
    }

    @Test
    void rejectsChangesToImmutableFields() {
        ObjectNode oldObject = object("{'metadata': {'name': 'a', 'namespace': 'ns', 'uid': 'u1', 'creationTimestamp': '2024-01-02T03:04:05Z', 'resourceVersion': '5', 'generation': 3}}");
        ObjectNode newObject = object("{'metadata': {'name': 'b', 'namespace': 'ns', 'uid': 'u2', 'creationTimestamp': '2024-01-02T03:04:06Z', 'resourceVersion': '5', 'generation': 2, 'deletionGracePeriodSeconds': 30}}");
        assertThat(messages(ObjectMetaValidation.validateUpdate(newObject, oldObject))).containsExactly(
                "metadata.generation: Invalid value: 2: must not be decremented",
                "metadata.name: Invalid value: \"b\": field is immutable",
                "metadata.uid: Invalid value: \"u2\": field is immutable",
                "metadata.creationTimestamp: Invalid value: \"2024-01-02T03:04:06Z\": field is immutable",
                "metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable");
    }

    @Test
    void treatsAbsentAndEmptyAsEqualAndRequiresAResourceVersion() {
        ObjectNode oldObject = object("{'metadata': {'name': 'a', 'namespace': ''}}");
        ObjectNode newObject = object("{'metadata': {'name': 'a'}}");
        assertThat(messages(ObjectMetaValidation.validateUpdate(newObject, oldObject)))
                .containsExactly("metadata.resourceVersion: Invalid value: \"\": must be specified for an update");
    }

    @Test
    void forbidsNewFinalizersOnceDeleting() {
        ObjectNode oldObject = object("{'metadata': {'name': 'a', 'resourceVersion': '1', 'deletionTimestamp': '2024-01-02T03:04:05Z', 'finalizers': ['x']}}");
        ObjectNode newObject = object("{'metadata': {'name': 'a', 'resourceVersion': '1', 'deletionTimestamp': '2024-01-02T03:04:05Z', 'finalizers': ['x', 'z', 'y']}}");
        assertThat(messages(ObjectMetaValidation.validateUpdate(newObject, oldObject))).containsExactly(
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"y\", \"z\"}");
    }

    @Test
    void quotesValuesAsGoDoes() {
        assertThat(FieldError.quote("a\"b\\c\n\u0001é")).isEqualTo("\"a\\\"b\\\\c\\n\\x01é\"");
        assertThat(FieldError.invalid("f", null, "d").message()).isEqualTo("f: Invalid value: null: d");
        assertThat(FieldError.tooMany("f", 3, 2).message()).isEqualTo("f: Too many: 3: must have at most 2 items");
    }

    @Test
    void validatesManagedFieldsAndFieldManagers() {
        ObjectNode object = object("""
                {'metadata': {'name': 'a', 'managedFields': [
                  {'manager': 'kubectl', 'operation': 'Update', 'fieldsType': 'FieldsV1'},
                  {'manager': 'x\\ty', 'operation': 'Patch', 'fieldsType': 'FieldsV2'}]}}""");
        assertThat(messages(ObjectMetaValidation.validateCreate(object, false, NameValidator.DNS_SUBDOMAIN))).containsExactly(
                "metadata.managedFields[1].operation: Invalid value: \"Patch\": must be `Apply` or `Update`",
                "metadata.managedFields[1].fieldsType: Invalid value: \"FieldsV2\": must be `FieldsV1`",
                "metadata.managedFields[1].manager: Invalid value: \"x\\ty\": invalid character U+0009 (at position 1)");
        assertThat(messages(ObjectMetaValidation.validateFieldManager("m".repeat(129), "fieldManager")))
                .containsExactly("fieldManager: Too long: must have at most 128 bytes");
        assertThat(ObjectMetaValidation.validateFieldManager("kubectl-client-side-apply", "fieldManager").list()).isEmpty();
    }
}
