package io.k4j.apiserver.registry.core.pod;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class PodSpecValidationTest {
    /** A pod spec as it looks after defaulting, with one container whose extra fields are spliced in. */
    private static ObjectNode spec(String containerFields) {
        return object("{'restartPolicy':'Always','dnsPolicy':'ClusterFirst','containers':[{'name':'web','image':'nginx',"
                + "'imagePullPolicy':'Always','terminationMessagePolicy':'File'" + containerFields + "}]}");
    }

    @Test
    void probesNeedExactlyOneHandlerAndNonNegativeTimings() {
        ObjectNode spec = spec(",'livenessProbe':{'exec':{'command':['true']},'httpGet':{'path':'/','port':80,'scheme':'HTTP'},"
                + "'periodSeconds':-1,'timeoutSeconds':1,'successThreshold':2,'failureThreshold':3},"
                + "'readinessProbe':{'periodSeconds':10,'timeoutSeconds':1,'successThreshold':3,'failureThreshold':3},"
                + "'startupProbe':{'httpGet':{'path':'','port':'HTTP','scheme':'FTP','httpHeaders':[{'name':'X Bad','value':'1'}]},"
                + "'periodSeconds':10,'timeoutSeconds':1,'successThreshold':1,'failureThreshold':3,'terminationGracePeriodSeconds':0}");
        assertThat(messages(PodSpecValidation.validateSpec(spec, "spec", true))).containsExactly(
                "spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type",
                "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
                "spec.containers[0].readinessProbe: Required value: must specify a handler type",
                "spec.containers[0].startupProbe.httpGet.path: Required value",
                "spec.containers[0].startupProbe.httpGet.port: Invalid value: \"HTTP\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "spec.containers[0].startupProbe.httpGet.port: Invalid value: \"HTTP\": must contain at least one letter (a-z)",
                "spec.containers[0].startupProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\"",
                "spec.containers[0].startupProbe.httpGet.httpHeaders: Invalid value: \"X Bad\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')",
                "spec.containers[0].startupProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0",
                "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1");
    }

    @Test
    void optionalNamesAreCheckedOnlyWhenSet() {
        ObjectNode spec = spec("");
        spec.put("hostname", "Web_1").put("nodeName", "node 1").put("schedulerName", "").put("subdomain", "db");
        assertThat(messages(PodSpecValidation.validateSpec(spec, "spec", true))).containsExactly(
                "spec.nodeName: Invalid value: \"node 1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.hostname: Invalid value: \"Web_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    }

    @Test
    void lifecycleHooksNeedOneHandler() {
        ObjectNode spec = spec(",'lifecycle':{'postStart':{},'preStop':{'exec':{'command':[]},'tcpSocket':{'port':0}}}");
        assertThat(messages(PodSpecValidation.validateSpec(spec, "spec", true))).containsExactly(
                "spec.containers[0].lifecycle.postStart: Required value: must specify a handler type",
                "spec.containers[0].lifecycle.preStop.exec.command: Required value",
                "spec.containers[0].lifecycle.preStop.tcpSocket: Forbidden: may not specify more than 1 handler type");
    }

    @Test
    void environmentValuesComeFromExactlyOneSource() {
        ObjectNode spec = spec(",'env':["
                + "{'name':'A','valueFrom':{}},"
                + "{'name':'B','value':'x','valueFrom':{'fieldRef':{'fieldPath':'metadata.name'}}},"
                + "{'name':'C','valueFrom':{'fieldRef':{'fieldPath':'metadata.name'},'secretKeyRef':{'name':'s','key':'k'}}},"
                + "{'name':'D','valueFrom':{'configMapKeyRef':{'name':'Cfg','key':'a b'}}},"
                + "{'name':'E=1','valueFrom':{'secretKeyRef':{'name':'s'}}}]");
        assertThat(messages(PodSpecValidation.validateSpec(spec, "spec", true))).containsExactly(
                "spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
                "spec.containers[0].env[1].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
                "spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not have more than one field specified at a time",
                "spec.containers[0].env[3].valueFrom.configMapKeyRef.name: Invalid value: \"Cfg\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.containers[0].env[3].valueFrom.configMapKeyRef.key: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
                "spec.containers[0].env[4].name: Invalid value: \"E=1\": a valid environment variable name must consist only of printable ASCII characters other than '='",
                "spec.containers[0].env[4].valueFrom.secretKeyRef.key: Required value");
    }

    @Test
    void nodeSelectorsAndTolerationsUseLabelValues() {
        ObjectNode spec = spec("");
        spec.set("nodeSelector", object("{'disk':'ssd ','zone':'a'}"));
        spec.set("tolerations", object("{'t':[{'key':'k','operator':'Equal','value':'-x-','effect':'NoSchedule'},"
                + "{'operator':'Exists','effect':'Never'},{'key':'k','operator':'Maybe'},{'key':'k','operator':'Exists','value':'v','tolerationSeconds':5}]}").get("t"));
        String labelValue = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
        assertThat(messages(PodSpecValidation.validateSpec(spec, "spec", true))).containsExactly(
                "spec.nodeSelector: Invalid value: \"ssd \": " + labelValue,
                "spec.tolerations[0].operator: Invalid value: \"-x-\": " + labelValue,
                "spec.tolerations[1].effect: Unsupported value: \"Never\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                "spec.tolerations[2].operator: Unsupported value: \"Maybe\": supported values: \"Equal\", \"Exists\"",
                "spec.tolerations[3].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set",
                "spec.tolerations[3].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'");
    }

    @Test
    void templatesCheckTheirLabelsAndAnnotationsWithoutMetadataInThePath() {
        ObjectNode template = object("{'metadata':{'labels':{'app':'web'},'annotations':{'a/b/c':'x'}}}");
        template.set("spec", spec(""));
        assertThat(messages(PodSpecValidation.validateTemplate(template, "spec.template"))).singleElement().asString()
                .startsWith("spec.template.annotations: Invalid value: \"a/b/c\": a qualified name must consist of");
    }
}
