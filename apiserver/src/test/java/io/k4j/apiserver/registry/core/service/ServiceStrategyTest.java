package io.k4j.apiserver.registry.core.service;

import static io.k4j.apiserver.registry.core.Json.messages;
import static io.k4j.apiserver.registry.core.Json.normalized;
import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.ObjectMetaValidation;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class ServiceStrategyTest {
    private final ServiceStrategy strategy = new ServiceStrategy(InstantSource.fixed(Instant.parse("2026-01-01T00:01:00Z")));

    @Test
    void defaultsTypeAffinityPoliciesFamiliesAndTargetPorts() {
        ObjectNode service = object("{'metadata':{'name':'web'},'spec':{'clusterIP':'10.96.0.10','ports':[{'port':80},{'port':443,'targetPort':'https'}]}}");
        strategy.applyDefaults(service);
        assertThat(normalized(service.get("spec"))).isEqualTo(object("{'clusterIP':'10.96.0.10','ports':["
                + "{'port':80,'protocol':'TCP','targetPort':80},{'port':443,'targetPort':'https','protocol':'TCP'}],"
                + "'sessionAffinity':'None','type':'ClusterIP','internalTrafficPolicy':'Cluster','ipFamilyPolicy':'SingleStack',"
                + "'ipFamilies':['IPv4'],'clusterIPs':['10.96.0.10']}"));
    }

    @Test
    void defaultsNodePortAndLoadBalancerPoliciesAndClientIpTimeout() {
        ObjectNode service = object("{'spec':{'type':'LoadBalancer','sessionAffinity':'ClientIP','ports':[{'port':80}]}}");
        strategy.applyDefaults(service);
        assertThat(service.at("/spec/externalTrafficPolicy").asText()).isEqualTo("Cluster");
        assertThat(service.at("/spec/allocateLoadBalancerNodePorts").asBoolean()).isTrue();
        assertThat(service.at("/spec/sessionAffinityConfig/clientIP/timeoutSeconds").asInt()).isEqualTo(10800);

        ObjectNode externalName = object("{'spec':{'type':'ExternalName','externalName':'example.com'}}");
        strategy.applyDefaults(externalName);
        assertThat(externalName.at("/spec/ipFamilies").isMissingNode()).isTrue();
        assertThat(externalName.at("/spec/internalTrafficPolicy").isMissingNode()).isTrue();
    }

    @Test
    void createStartsWithAnEmptyLoadBalancerStatus() {
        ObjectNode service = object("{'spec':{},'status':{'loadBalancer':{'ingress':[{'ip':'1.2.3.4'}]}}}");
        strategy.prepareForCreate(service);
        assertThat(service.get("status")).isEqualTo(object("{'loadBalancer':{}}"));
    }

    @Test
    void checksPortsSelectorsAndIps() {
        ObjectNode service = object("{'metadata':{'name':'web'},'spec':{'type':'ClusterIP','sessionAffinity':'None','clusterIP':'10.96.0.10',"
                + "'clusterIPs':['10.96.0.10'],'selector':{'app':'-x'},'externalIPs':['nope'],'ports':["
                + "{'name':'http','port':80,'protocol':'TCP','targetPort':0},"
                + "{'name':'http','port':70000,'protocol':'ICMP','targetPort':'Web','nodePort':30000}]}}");
        assertThat(messages(strategy.validate(service))).containsExactlyInAnyOrder(
                "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
                "spec.ports[1].name: Duplicate value: \"http\"",
                "spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.ports[1].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "spec.ports[1].targetPort: Invalid value: \"Web\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "spec.ports[1].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
                "spec.externalIPs[0]: Invalid value: \"nope\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "spec.selector: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    }

    @Test
    void requiresPortsUnlessHeadlessOrExternalName() {
        assertThat(messages(strategy.validate(object("{'spec':{'type':'ClusterIP','sessionAffinity':'None'}}")))).containsExactly("spec.ports: Required value");
        assertThat(strategy.validate(object("{'spec':{'type':'ClusterIP','sessionAffinity':'None','clusterIP':'None','clusterIPs':['None']}}")).isEmpty()).isTrue();
        assertThat(messages(strategy.validate(object("{'spec':{'type':'ExternalName','sessionAffinity':'None','externalName':'Bad_Name'}}")))).containsExactly(
                "spec.externalName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }

    @Test
    void namesAreRfc1035LabelsCheckedOnceByTheStore() {
        ObjectNode startsWithDigit = object("{'metadata':{'name':'1web','namespace':'default'},'spec':{'type':'ClusterIP','sessionAffinity':'None','clusterIP':'None'}}");
        assertThat(messages(ObjectMetaValidation.validateCreate(startsWithDigit, true, strategy.nameValidator()))).containsExactly(
                "metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
        // Not a DNS subdomain either: still the one DNS-1035 error, as upstream, and none from the strategy.
        ObjectNode upperCase = object("{'metadata':{'name':'Web','namespace':'default'},'spec':{'type':'ClusterIP','sessionAffinity':'None','clusterIP':'None'}}");
        assertThat(messages(ObjectMetaValidation.validateCreate(upperCase, true, strategy.nameValidator()))).containsExactly(
                "metadata.name: Invalid value: \"Web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
        assertThat(strategy.validate(upperCase).isEmpty()).isTrue();
    }

    @Test
    void clusterIpIsFixedOnceSetAndStatusIsSeparate() {
        ObjectNode old = object("{'metadata':{'name':'web'},'spec':{'type':'ClusterIP','sessionAffinity':'None','clusterIP':'10.96.0.10','clusterIPs':['10.96.0.10'],"
                + "'ports':[{'port':80,'protocol':'TCP','targetPort':80}]},'status':{'loadBalancer':{}}}");
        ObjectNode changed = old.deepCopy();
        ((ObjectNode) changed.get("spec")).put("clusterIP", "10.96.0.11").putArray("clusterIPs").add("10.96.0.11");
        assertThat(messages(strategy.validateUpdate(changed, old))).containsExactly(
                "spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.11\"}: may not change once set");

        ObjectNode withStatus = old.deepCopy();
        withStatus.putObject("status").putObject("loadBalancer").putArray("ingress").addObject().put("ip", "1.2.3.4");
        strategy.prepareForUpdate(withStatus, old);
        assertThat(withStatus.get("status")).isEqualTo(object("{'loadBalancer':{}}"));

        ResourceStrategy status = strategy.statusStrategy();
        ObjectNode statusUpdate = object("{'metadata':{'name':'web'},'spec':{'type':'NodePort'},'status':{'loadBalancer':{'ingress':[{'ip':'999.1.1.1'}]}}}");
        status.prepareForUpdate(statusUpdate, old);
        assertThat(statusUpdate.get("spec")).isEqualTo(old.get("spec"));
        assertThat(messages(status.validateUpdate(statusUpdate, old))).containsExactly(
                "status.loadBalancer.ingress[0].ip: Invalid value: \"999.1.1.1\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
    }

    @Test
    void printsTypeIpsPortsAndSelector() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly("Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector");
        ObjectNode nodePort = object("{'metadata':{'name':'web','creationTimestamp':'2026-01-01T00:00:00Z'},'spec':{'type':'NodePort','clusterIPs':['10.96.0.10'],"
                + "'ports':[{'port':80,'nodePort':30080,'protocol':'TCP'},{'port':53,'protocol':'UDP'}],'selector':{'app':'web'}}}");
        assertThat(strategy.tableRow(nodePort)).containsExactly("web", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP", "60s", "app=web");
        ObjectNode pending = object("{'metadata':{'name':'lb'},'spec':{'type':'LoadBalancer','clusterIPs':['10.96.0.11'],'ports':[{'port':80,'nodePort':31000,'protocol':'TCP'}]}}");
        assertThat(strategy.tableRow(pending).subList(0, 5)).containsExactly("lb", "LoadBalancer", "10.96.0.11", "<pending>", "80:31000/TCP");
        ObjectNode external = object("{'metadata':{'name':'ext'},'spec':{'type':'ExternalName','externalName':'example.com'}}");
        assertThat(strategy.tableRow(external)).containsExactly("ext", "ExternalName", "<none>", "example.com", "<none>", "<unknown>", "<none>");
    }

    @Test
    void clientIpAffinityTimeoutsAreBoundedAndNoneDropsTheConfig() {
        ObjectNode tooLong = object("{'metadata':{'name':'web'},'spec':{'sessionAffinity':'ClientIP','sessionAffinityConfig':{'clientIP':{'timeoutSeconds':86401}},"
                + "'ports':[{'port':80}]}}");
        strategy.applyDefaults(tooLong);
        assertThat(messages(strategy.validate(tooLong))).containsExactly(
                "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400");

        ObjectNode none = object("{'metadata':{'name':'web'},'spec':{'sessionAffinity':'None','sessionAffinityConfig':{'clientIP':{'timeoutSeconds':60}},"
                + "'ports':[{'port':80}]}}");
        strategy.applyDefaults(none);
        assertThat(none.at("/spec/sessionAffinityConfig").isMissingNode()).isTrue();
    }
}
