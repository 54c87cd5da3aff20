package io.k4j.apiserver.registry.storage.storageclass;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class StorageClassStrategyTest {
    private final StorageClassStrategy strategy = new StorageClassStrategy(type("storage.k8s.io", "storageclasses"), AGES);

    private ObjectNode storageClass(String provisioner) {
        ObjectNode object = json("{'metadata': {'name': 'local', 'creationTimestamp': '2024-05-01T11:00:00Z',"
                + " 'annotations': {'storageclass.kubernetes.io/is-default-class': 'true'}}, 'provisioner': '" + provisioner + "', 'parameters': {'path': '/data'}}");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsReclaimPolicyAndBindingMode() {
        ObjectNode object = storageClass("rancher.io/local-path");

        assertThat(object.at("/reclaimPolicy").asText()).isEqualTo("Delete");
        assertThat(object.at("/volumeBindingMode").asText()).isEqualTo("Immediate");
        assertThat(messages(strategy.validate(object))).isEmpty();
    }

    @Test
    void requiresAQualifiedProvisioner() {
        assertThat(messages(strategy.validate(storageClass("")))).containsExactly("provisioner: Required value");
        assertThat(messages(strategy.validate(storageClass("a/b/c")))).containsExactly(
                "provisioner: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    }

    @Test
    void rejectsUnknownPolicies() {
        ObjectNode object = storageClass("example.com/disk");
        object.put("reclaimPolicy", "Recycle").put("volumeBindingMode", "Later");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\"",
                "volumeBindingMode: Unsupported value: \"Later\": supported values: \"Immediate\", \"WaitForFirstConsumer\"");
    }

    @Test
    void provisionerParametersReclaimPolicyAndBindingModeNeverChange() {
        ObjectNode old = storageClass("example.com/disk");
        ObjectNode updated = storageClass("example.com/other");
        ((ObjectNode) updated.get("parameters")).put("path", "/other");
        updated.put("reclaimPolicy", "Retain").put("volumeBindingMode", "WaitForFirstConsumer").put("allowVolumeExpansion", true);

        assertThat(messages(strategy.validateUpdate(updated, old))).containsExactly(
                "parameters: Forbidden: updates to parameters are forbidden.",
                "provisioner: Forbidden: updates to provisioner are forbidden.",
                "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
                "volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable");
    }

    @Test
    void marksTheDefaultClass() {
        assertThat(strategy.tableRow(storageClass("rancher.io/local-path")))
                .containsExactly("local (default)", "rancher.io/local-path", "Delete", "Immediate", false, "60m");
    }
}
