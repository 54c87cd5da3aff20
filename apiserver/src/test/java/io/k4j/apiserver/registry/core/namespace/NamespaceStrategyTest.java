package io.k4j.apiserver.registry.core.namespace;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.ObjectMetaValidation;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class NamespaceStrategyTest {
    private final NamespaceStrategy strategy = new NamespaceStrategy(InstantSource.fixed(Instant.parse("2026-01-03T00:00:00Z")));

    @Test
    void newNamespacesAreActiveWithTheKubernetesFinalizerAndNameLabel() {
        ObjectNode namespace = object("{'metadata':{'name':'team-a','creationTimestamp':'2026-01-01T00:00:00Z'}}");
        strategy.applyDefaults(namespace);
        strategy.prepareForCreate(namespace);
        assertThat(namespace.at("/metadata/labels")).isEqualTo(object("{'kubernetes.io/metadata.name':'team-a'}"));
        assertThat(namespace.get("spec")).isEqualTo(object("{'finalizers':['kubernetes']}"));
        assertThat(namespace.get("status")).isEqualTo(object("{'phase':'Active'}"));
        assertThat(strategy.tableRow(namespace)).containsExactly("team-a", "Active", "2d");
        assertThat(strategy.selectableFields(namespace)).containsEntry("status.phase", "Active");
    }

    @Test
    void namesAreLabelsAndFinalizersQualified() {
        ObjectNode namespace = object("{'metadata':{'name':'a.b'},'spec':{'finalizers':['custom']}}");
        assertThat(messages(ObjectMetaValidation.validateCreate(namespace, false, strategy.nameValidator()))).containsExactly(
                "metadata.name: Invalid value: \"a.b\": must not contain dots");
        assertThat(messages(strategy.validate(namespace))).containsExactly(
                "spec.finalizers: Invalid value: \"custom\": name is neither a standard finalizer name nor is it fully qualified");
    }

    @Test
    void namesThatAreNotEvenSubdomainsGetOneError() {
        // The store checks the name with the namespace's rule only, so one bad name is one error, as upstream.
        assertThat(messages(ObjectMetaValidation.validateCreate(object("{'metadata':{'name':'Team_A'}}"), false, strategy.nameValidator()))).containsExactly(
                "metadata.name: Invalid value: \"Team_A\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
        assertThat(strategy.validate(object("{'metadata':{'name':'Team_A'}}")).isEmpty()).isTrue();
    }

    @Test
    void updatesKeepFinalizersAndStatusWhileFinalizeChangesFinalizers() {
        ObjectNode old = object("{'metadata':{'name':'a'},'spec':{'finalizers':['kubernetes']},'status':{'phase':'Active'}}");
        ObjectNode updated = object("{'metadata':{'name':'a'},'spec':{'finalizers':[]},'status':{'phase':'Terminating'}}");
        strategy.prepareForUpdate(updated, old);
        assertThat(updated).isEqualTo(old);
        ObjectNode finalized = object("{'metadata':{'name':'a'},'spec':{'finalizers':[]},'status':{'phase':'Terminating'}}");
        new NamespaceFinalizeStrategy(strategy).prepareForUpdate(finalized, old);
        assertThat(finalized).isEqualTo(object("{'metadata':{'name':'a'},'spec':{'finalizers':[]},'status':{'phase':'Active'}}"));
    }

    @Test
    void aDeletedNamespaceTerminatesUntilItsSpecFinalizersAreGone() {
        ObjectNode namespace = object("{'metadata':{'name':'a'},'spec':{'finalizers':['kubernetes']},'status':{'phase':'Active'}}");
        assertThat(strategy.hasPendingFinalization(namespace)).isTrue();
        strategy.prepareForDelete(namespace);
        assertThat(namespace.at("/status/phase").asText()).isEqualTo("Terminating");
        assertThat(strategy.hasPendingFinalization(object("{'metadata':{'name':'a'},'spec':{'finalizers':[]}}"))).isFalse();
        assertThat(strategy.hasPendingFinalization(object("{'metadata':{'name':'a'}}"))).isFalse();
    }

    @Test
    void statusPhaseMustAgreeWithDeletion() {
        ObjectNode old = object("{'metadata':{'name':'a'},'status':{'phase':'Active'}}");
        assertThat(messages(new NamespaceStatusStrategy(strategy).validateUpdate(object("{'metadata':{'name':'a'},'status':{'phase':'Terminating'}}"), old)))
                .containsExactly("status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty");
    }
}
