package io.k4j.apiserver.registry.core.pod;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class PodStrategyTest {
    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    private final PodStrategy strategy = new PodStrategy(InstantSource.fixed(NOW));

    private static ObjectNode plainPod() {
        return object("{'metadata':{'name':'web','namespace':'default','creationTimestamp':'2026-01-01T11:55:00Z'},"
                + "'spec':{'containers':[{'name':'nginx','image':'nginx','ports':[{'containerPort':80}]}]}}");
    }

    @Test
    void defaultsAPlainPodAsARealClusterShowsIt() {
        ObjectNode pod = plainPod();
        strategy.applyDefaults(pod);
        strategy.prepareForCreate(pod);
        assertThat(pod.get("spec")).isEqualTo(object("{'containers':[{'name':'nginx','image':'nginx','ports':[{'containerPort':80,'protocol':'TCP'}],"
                + "'imagePullPolicy':'Always','terminationMessagePath':'/dev/termination-log','terminationMessagePolicy':'File','resources':{}}],"
                + "'enableServiceLinks':true,'dnsPolicy':'ClusterFirst','restartPolicy':'Always','securityContext':{},"
                + "'terminationGracePeriodSeconds':30,'schedulerName':'default-scheduler'}"));
        assertThat(pod.get("status")).isEqualTo(object("{'phase':'Pending','qosClass':'BestEffort'}"));
    }

    @Test
    void pullPolicyFollowsTheTag() {
        assertThat(PodSpecDefaults.imageTag("nginx:1.27")).isEqualTo("1.27");
        assertThat(PodSpecDefaults.imageTag("registry:5000/nginx")).isEqualTo("latest");
        assertThat(PodSpecDefaults.imageTag("nginx@sha256:abc")).isEmpty();
        ObjectNode pod = object("{'spec':{'containers':[{'name':'a','image':'nginx:1.27','resources':{'limits':{'cpu':'1','memory':'1Gi'}}}]}}");
        strategy.applyDefaults(pod);
        strategy.prepareForCreate(pod);
        assertThat(pod.at("/spec/containers/0/imagePullPolicy").asText()).isEqualTo("IfNotPresent");
        assertThat(pod.at("/spec/containers/0/resources/requests")).isEqualTo(object("{'cpu':'1','memory':'1Gi'}"));
        assertThat(pod.at("/status/qosClass").asText()).isEqualTo("Guaranteed");
    }

    @Test
    void reportsEveryProblemWithUpstreamPathsAndMessages() {
        ObjectNode pod = object("{'spec':{'restartPolicy':'Sometimes','dnsPolicy':'ClusterFirst','containers':["
                + "{'name':'web','image':'','imagePullPolicy':'Always','terminationMessagePolicy':'File','ports':[{'containerPort':70000,'protocol':'TCP'}]},"
                + "{'name':'web','image':'x','imagePullPolicy':'Always','terminationMessagePolicy':'File','volumeMounts':[{'name':'data','mountPath':'/d'}]}]}}");
        assertThat(messages(strategy.validate(pod))).containsExactly(
                "spec.containers[0].image: Required value",
                "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.containers[1].name: Duplicate value: \"web\"",
                "spec.containers[1].volumeMounts[0].name: Not found: \"data\"",
                "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"");
    }

    @Test
    void requiresContainers() {
        ObjectNode pod = object("{'spec':{'restartPolicy':'Always','dnsPolicy':'ClusterFirst'}}");
        assertThat(messages(strategy.validate(pod))).containsExactly("spec.containers: Required value");
    }

    @Test
    void updatesMayChangeImagesButNotOtherFields() {
        ObjectNode old = plainPod();
        strategy.applyDefaults(old);
        ObjectNode newImage = old.deepCopy();
        ((ObjectNode) newImage.at("/spec/containers/0")).put("image", "nginx:2");
        assertThat(strategy.validateUpdate(newImage, old).isEmpty()).isTrue();

        ObjectNode newPolicy = old.deepCopy();
        ((ObjectNode) newPolicy.get("spec")).put("restartPolicy", "Never");
        assertThat(messages(strategy.validateUpdate(newPolicy, old))).singleElement().asString()
                .startsWith("spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
                        + "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
                        + "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n")
                .contains("restartPolicy");
    }

    @Test
    void keepsStatusOnUpdate() {
        ObjectNode old = plainPod();
        old.set("status", object("{'phase':'Running'}"));
        ObjectNode updated = plainPod();
        updated.set("status", object("{'phase':'Failed'}"));
        strategy.prepareForUpdate(updated, old);
        assertThat(updated.at("/status/phase").asText()).isEqualTo("Running");
    }

    @Test
    void gracePeriodFollowsUpstream() {
        ObjectNode pod = plainPod();
        strategy.applyDefaults(pod);
        assertThat(strategy.gracePeriodSeconds(pod, null)).isZero();
        ((ObjectNode) pod.get("spec")).put("nodeName", "node-1");
        assertThat(strategy.gracePeriodSeconds(pod, null)).isEqualTo(30);
        assertThat(strategy.gracePeriodSeconds(pod, 5L)).isEqualTo(5);
        assertThat(strategy.gracePeriodSeconds(pod, -3L)).isEqualTo(1);
        pod.set("status", object("{'phase':'Succeeded'}"));
        assertThat(strategy.gracePeriodSeconds(pod, null)).isZero();
    }

    @Test
    void selectsOnUpstreamFields() {
        ObjectNode pod = plainPod();
        pod.set("status", object("{'phase':'Running','podIPs':[{'ip':'10.0.0.5'}]}"));
        assertThat(strategy.selectableFields(pod))
                .containsEntry("status.phase", "Running")
                .containsEntry("status.podIP", "10.0.0.5")
                .containsEntry("spec.hostNetwork", "false")
                .containsEntry("spec.nodeName", "");
    }

    @Test
    void printsAPendingPod() {
        ObjectNode pod = plainPod();
        strategy.applyDefaults(pod);
        strategy.prepareForCreate(pod);
        assertThat(strategy.tableRow(pod)).containsExactly("web", "0/1", "Pending", "0", "5m", "<none>", "<none>", "<none>", "<none>");
        assertThat(strategy.tableColumns()).extracting(column -> column.name())
                .containsExactly("Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates");
    }

    @Test
    void printsContainerStatesAndRestarts() {
        ObjectNode pod = plainPod();
        pod.set("status", object("{'phase':'Running','podIPs':[{'ip':'10.0.0.5'}],'containerStatuses':[{'name':'nginx','ready':false,'restartCount':3,"
                + "'state':{'waiting':{'reason':'CrashLoopBackOff'}},'lastState':{'terminated':{'exitCode':1,'finishedAt':'2026-01-01T11:58:00Z'}}}]}"));
        ((ObjectNode) pod.get("spec")).put("nodeName", "node-1");
        assertThat(strategy.tableRow(pod)).containsExactly("web", "0/1", "CrashLoopBackOff", "3 (2m ago)", "5m", "10.0.0.5", "node-1", "<none>", "<none>");

        pod.set("status", object("{'phase':'Running','containerStatuses':[{'name':'nginx','ready':true,'restartCount':0,'state':{'running':{}}}]}"));
        assertThat(strategy.tableRow(pod).subList(1, 3)).containsExactly("1/1", "Running");

        ((ObjectNode) pod.get("metadata")).put("deletionTimestamp", "2026-01-01T11:59:00Z");
        assertThat(strategy.tableRow(pod).get(2)).isEqualTo("Terminating");
    }

    @Test
    void printsInitProgressAndCompletion() {
        ObjectNode pod = object("{'metadata':{'name':'job'},'spec':{'initContainers':[{'name':'init'}],'containers':[{'name':'main'}]},"
                + "'status':{'phase':'Pending','initContainerStatuses':[{'name':'init','state':{'running':{}}}]}}");
        assertThat(strategy.tableRow(pod).get(2)).isEqualTo("Init:0/1");
        pod.set("status", object("{'phase':'Succeeded','initContainerStatuses':[{'name':'init','state':{'terminated':{'exitCode':0}}}],"
                + "'containerStatuses':[{'name':'main','state':{'terminated':{'exitCode':0,'reason':'Completed'}}}]}"));
        assertThat(strategy.tableRow(pod).get(2)).isEqualTo("Completed");
        pod.set("status", object("{'phase':'Pending','containerStatuses':[{'name':'main','state':{'waiting':{'reason':'ContainerCreating'}}}]}"));
        assertThat(strategy.tableRow(pod).get(2)).isEqualTo("ContainerCreating");
    }
}
