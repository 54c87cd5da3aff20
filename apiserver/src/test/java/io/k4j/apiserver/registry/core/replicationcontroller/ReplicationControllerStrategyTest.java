package io.k4j.apiserver.registry.core.replicationcontroller;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.normalized;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class ReplicationControllerStrategyTest {
    private static final String TEMPLATE = "'template':{'metadata':{'labels':{'app':'web'}},'spec':{'containers':[{'name':'web','image':'nginx'}]}}";
    private final ReplicationControllerStrategy strategy = new ReplicationControllerStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void selectorLabelsAndReplicasDefaultFromTheTemplate() {
        ObjectNode controller = object("{'metadata':{'name':'web'},'spec':{" + TEMPLATE + "}}");
        strategy.applyDefaults(controller);
        assertThat(controller.at("/spec/selector")).isEqualTo(object("{'app':'web'}"));
        assertThat(controller.at("/metadata/labels")).isEqualTo(object("{'app':'web'}"));
        assertThat(controller.at("/spec/replicas").asInt()).isEqualTo(1);
        assertThat(controller.at("/spec/template/spec/restartPolicy").asText()).isEqualTo("Always");
        assertThat(controller.at("/spec/template/spec/containers/0/imagePullPolicy").asText()).isEqualTo("Always");

        ObjectNode explicit = object("{'metadata':{'name':'web','labels':{'team':'a'}},'spec':{'replicas':0,'selector':{'app':'web'}," + TEMPLATE + "}}");
        strategy.applyDefaults(explicit);
        assertThat(explicit.at("/metadata/labels")).isEqualTo(object("{'team':'a'}"));
        assertThat(explicit.at("/spec/replicas").asInt()).isZero();
    }

    @Test
    void createStartsAtGenerationOneAndSpecChangesBumpIt() {
        ObjectNode controller = object("{'metadata':{'name':'web'},'spec':{'replicas':2},'status':{'replicas':5}}");
        strategy.prepareForCreate(controller);
        assertThat(controller.at("/metadata/generation").asInt()).isEqualTo(1);
        assertThat(controller.get("status")).isEqualTo(object("{'replicas':0}"));

        ObjectNode old = object("{'metadata':{'name':'web','generation':1},'spec':{'replicas':2},'status':{'replicas':2}}");
        ObjectNode scaled = object("{'metadata':{'name':'web','generation':7},'spec':{'replicas':3},'status':{'replicas':9}}");
        strategy.prepareForUpdate(scaled, old);
        assertThat(normalized(scaled)).isEqualTo(object("{'metadata':{'name':'web','generation':2},'spec':{'replicas':3},'status':{'replicas':2}}"));
        ObjectNode relabelled = object("{'metadata':{'name':'web','generation':1,'labels':{'a':'b'}},'spec':{'replicas':2}}");
        strategy.prepareForUpdate(relabelled, old);
        assertThat(relabelled.at("/metadata/generation").asInt()).isEqualTo(1);
    }

    @Test
    void statusUpdatesKeepSpecAndGeneration() {
        ResourceStrategy status = strategy.statusStrategy();
        ObjectNode old = object("{'metadata':{'name':'web','generation':3},'spec':{'replicas':2},'status':{'replicas':1}}");
        ObjectNode updated = object("{'metadata':{'name':'web','generation':9},'spec':{'replicas':5},'status':{'replicas':-1,'readyReplicas':2}}");
        status.prepareForUpdate(updated, old);
        assertThat(normalized(updated)).isEqualTo(object("{'metadata':{'name':'web','generation':3},'spec':{'replicas':2},'status':{'replicas':-1,'readyReplicas':2}}"));
        assertThat(messages(status.validateUpdate(updated, old))).containsExactly("status.replicas: Invalid value: -1: must be greater than or equal to 0");
    }

    @Test
    void selectorMustMatchTheTemplateWhichMustRestartAlways() {
        ObjectNode controller = object("{'spec':{'replicas':-1,'minReadySeconds':-5,'selector':{'app':'api'},'template':{'metadata':{'labels':{'app':'web','tier':'-'}},"
                + "'spec':{'restartPolicy':'Never','activeDeadlineSeconds':10,'dnsPolicy':'ClusterFirst',"
                + "'containers':[{'name':'web','image':'nginx','imagePullPolicy':'Always','terminationMessagePolicy':'File'}]}}}}");
        assertThat(messages(strategy.validate(controller))).containsExactly(
                "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0",
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\", \"tier\":\"-\"}: `selector` does not match template `labels`",
                "spec.template.labels: Invalid value: \"-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"",
                "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported");
        assertThat(messages(strategy.validate(object("{'spec':{'replicas':1}}")))).containsExactly("spec.selector: Required value", "spec.template: Required value");
    }

    @Test
    void printsCountsAndWideTemplateColumns() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly(
                "Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector");
        ObjectNode controller = object("{'metadata':{'name':'web','creationTimestamp':'2026-01-01T00:00:00Z'},'spec':{'replicas':3,'selector':{'app':'web'},"
                + "'template':{'spec':{'containers':[{'name':'web','image':'nginx'},{'name':'log','image':'busybox'}]}}},'status':{'replicas':2,'readyReplicas':1}}");
        assertThat(strategy.tableRow(controller)).containsExactly("web", 3L, 2L, 1L, "60s", "web,log", "nginx,busybox", "app=web");
        assertThat(strategy.selectableFields(controller)).containsEntry("status.replicas", "2");
    }
}
