package io.k4j.apiserver.registry.core.podtemplate;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.TableColumn;
import org.junit.jupiter.api.Test;

class PodTemplateStrategyTest {
    private final PodTemplateStrategy strategy = new PodTemplateStrategy();

    @Test
    void defaultsTheEmbeddedPodSpec() {
        ObjectNode podTemplate = object("{'template':{'spec':{'containers':[{'name':'web','image':'nginx:1.27'}]}}}");
        strategy.applyDefaults(podTemplate);
        assertThat(podTemplate.at("/template/spec/restartPolicy").asText()).isEqualTo("Always");
        assertThat(podTemplate.at("/template/spec/dnsPolicy").asText()).isEqualTo("ClusterFirst");
        assertThat(podTemplate.at("/template/spec/containers/0/imagePullPolicy").asText()).isEqualTo("IfNotPresent");
        assertThat(podTemplate.at("/template/spec/containers/0/terminationMessagePath").asText()).isEqualTo("/dev/termination-log");
    }

    @Test
    void templateChangesBumpTheGeneration() {
        ObjectNode created = object("{'template':{}}");
        strategy.prepareForCreate(created);
        assertThat(created.at("/metadata/generation").asInt()).isEqualTo(1);

        ObjectNode old = object("{'metadata':{'generation':4},'template':{'spec':{'containers':[{'name':'a','image':'x'}]}}}");
        ObjectNode changed = object("{'metadata':{'generation':4},'template':{'spec':{'containers':[{'name':'a','image':'y'}]}}}");
        strategy.prepareForUpdate(changed, old);
        assertThat(changed.at("/metadata/generation").asInt()).isEqualTo(5);
        ObjectNode relabelled = object("{'metadata':{'generation':4,'labels':{'a':'b'}},'template':{'spec':{'containers':[{'name':'a','image':'x'}]}}}");
        strategy.prepareForUpdate(relabelled, old);
        assertThat(relabelled.at("/metadata/generation").asInt()).isEqualTo(4);
    }

    @Test
    void validatesTheTemplateWithUpstreamPaths() {
        ObjectNode podTemplate = object("{'template':{'metadata':{'labels':{'a b':'x'}},'spec':{'restartPolicy':'Always','dnsPolicy':'ClusterFirst','containers':[{'name':'web',"
                + "'imagePullPolicy':'Always','terminationMessagePolicy':'File'}]}}}");
        assertThat(messages(strategy.validate(podTemplate))).containsExactly(
                "template.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "template.spec.containers[0].image: Required value");
        assertThat(messages(strategy.validate(object("{}")))).containsExactly("template: Required value");
    }

    @Test
    void printsContainersImagesAndPodLabels() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly("Name", "Containers", "Images", "Pod Labels");
        ObjectNode podTemplate = object("{'metadata':{'name':'tpl'},'template':{'metadata':{'labels':{'b':'2','a':'1'}},"
                + "'spec':{'containers':[{'name':'web','image':'nginx'},{'name':'log','image':'busybox'}]}}}");
        assertThat(strategy.tableRow(podTemplate)).containsExactly("tpl", "web,log", "nginx,busybox", "a=1,b=2");
    }
}
