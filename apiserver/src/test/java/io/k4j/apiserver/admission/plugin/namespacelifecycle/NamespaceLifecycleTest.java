package io.k4j.apiserver.admission.plugin.namespacelifecycle;

import static io.k4j.apiserver.admission.AdmissionTesting.ADMIN;
import static io.k4j.apiserver.admission.AdmissionTesting.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.AdmissionTesting;
import io.k4j.apiserver.admission.FakeRegistry;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import org.junit.jupiter.api.Test;

class NamespaceLifecycleTest {
    private final FakeRegistry registry = new FakeRegistry()
            .with(Resources.NAMESPACES, "{\"metadata\":{\"name\":\"default\"},\"status\":{\"phase\":\"Active\"}}")
            .with(Resources.NAMESPACES, "{\"metadata\":{\"name\":\"leaving\"},\"status\":{\"phase\":\"Terminating\"}}");
    private final NamespaceLifecycle plugin = new NamespaceLifecycle(registry);

    @Test
    void allowsCreateInAnActiveNamespace() {
        assertThatCode(() -> plugin.admit(AdmissionTesting.createPod("default", json("{\"metadata\":{\"name\":\"p\"}}"))))
                .doesNotThrowAnyException();
    }

    @Test
    void rejectsCreateInAMissingNamespaceAsNotFound() {
        StatusException error = catchThrowableOfType(StatusException.class,
                () -> plugin.admit(AdmissionTesting.createPod("nowhere", json("{\"metadata\":{\"name\":\"p\"}}"))));
        assertThat(error.reason()).isEqualTo(StatusReason.NOT_FOUND);
        assertThat(error.getMessage()).isEqualTo("namespaces \"nowhere\" not found");
    }

    @Test
    void rejectsCreateInATerminatingNamespaceWithTheCause() {
        StatusException error = catchThrowableOfType(StatusException.class,
                () -> plugin.admit(AdmissionTesting.createPod("leaving", json("{\"metadata\":{\"name\":\"p\"}}"))));
        assertThat(error.code()).isEqualTo(403);
        assertThat(error.getMessage()).isEqualTo("pods \"p\" is forbidden: unable to create new content in namespace leaving because it is being terminated");
        assertThat(error.causes()).singleElement().satisfies(cause -> {
            assertThat(cause.reason()).isEqualTo("NamespaceTerminating");
            assertThat(cause.field()).isEqualTo("metadata.namespace");
        });
    }

    @Test
    void allowsDeletesInTerminatingNamespaces() {
        AdmissionAttributes delete = new AdmissionAttributes(Operation.DELETE, AdmissionTesting.type(Resources.PODS, "Pod", true), "",
                "leaving", "p", json("{}"), json("{}"), ADMIN, false);
        assertThatCode(() -> plugin.admit(delete)).doesNotThrowAnyException();
    }

    @Test
    void refusesToDeleteImmortalNamespaces() {
        AdmissionAttributes delete = new AdmissionAttributes(Operation.DELETE, AdmissionTesting.type(Resources.NAMESPACES, "Namespace", false), "",
                "", "kube-system", null, json("{}"), ADMIN, false);
        assertThat(catchThrowableOfType(StatusException.class, () -> plugin.admit(delete)).getMessage())
                .isEqualTo("namespaces \"kube-system\" is forbidden: this namespace may not be deleted");
    }

    @Test
    void allowsClusterScopedResources() {
        AdmissionAttributes create = AdmissionTesting.create(Resources.NODES, "Node", "", json("{\"metadata\":{\"name\":\"n\"}}"), ADMIN);
        assertThatCode(() -> plugin.admit(create)).doesNotThrowAnyException();
    }
}
