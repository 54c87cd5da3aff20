package io.k4j.apiserver.registry.core.podtemplate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.core.pod.PodSpecDefaults;
import io.k4j.apiserver.registry.core.pod.PodSpecValidation;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.util.List;

/**
 * The rules of pod templates, as upstream's {@code podTemplateStrategy}: the template is defaulted and validated like
 * any embedded pod template, and {@code metadata.generation} counts template changes. Thread-safe.
 */
public final class PodTemplateStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("podtemplates");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.string("Containers", "Names of each container in the template."),
            TableColumn.string("Images", "Images referenced by each container in the template."),
            TableColumn.string("Pod Labels", "The labels for the pod template."));

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void applyDefaults(ObjectNode podTemplate) {
        if (podTemplate.get("template") instanceof ObjectNode template) {
            PodSpecDefaults.applyToTemplate(template);
        }
    }

    @Override
    public void prepareForCreate(ObjectNode podTemplate) {
        Updates.initialGeneration(podTemplate);
    }

    @Override
    public void prepareForUpdate(ObjectNode newPodTemplate, ObjectNode oldPodTemplate) {
        Updates.bumpGenerationIfChanged(newPodTemplate, oldPodTemplate, "template");
    }

    @Override
    public FieldErrors validate(ObjectNode podTemplate) {
        return PodSpecValidation.validateTemplate(Trees.at(podTemplate, "template"), "template");
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newPodTemplate, ObjectNode oldPodTemplate) {
        return validate(newPodTemplate);
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode podTemplate) {
        String[] containers = Printing.containerCells(Trees.at(podTemplate, "template", "spec"));
        return List.of(
                Trees.text(podTemplate, "metadata", "name"),
                containers[0],
                containers[1],
                Printing.formatLabels(Trees.at(podTemplate, "template", "metadata", "labels")));
    }
}
