package io.k4j.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RuleGeneratorTest {
    private static final ServicePortName SVC1 = new ServicePortName("ns1", "svc1", "p80");
    private static final ServicePortName SVC2 = new ServicePortName("ns2", "svc2", "p80");

    private final RuleGenerator generator = new RuleGenerator(Optional.of("10.0.0.0/8"));

    @Test
    void chainNamesAreHashedAsUpstream() {
        // Values from upstream's iptables proxier tests: the names must match so a node moving between
        // kube-proxy implementations keeps its chains.
        assertThat(RuleGenerator.serviceChainName(SVC1, "TCP")).isEqualTo("KUBE-SVC-XPGD46QRK7WJZT7O");
        assertThat(RuleGenerator.endpointChainName(SVC1, "tcp", "10.180.0.1:80")).isEqualTo("KUBE-SEP-SXIVWICOYRO3J4NJ");
        assertThat(RuleGenerator.serviceChainName(SVC2, "tcp")).isEqualTo("KUBE-SVC-GNZBNJ2PO5MGZ6GT");
        assertThat(RuleGenerator.externalChainName(SVC2, "tcp")).isEqualTo("KUBE-EXT-GNZBNJ2PO5MGZ6GT");
    }

    @Test
    void clusterIpServiceWithOneEndpoint() {
        IptablesRules rules = generator.generate(Map.of(SVC1, clusterIp(SVC1, "172.30.0.41", 80)),
                Map.of(SVC1, List.of(ready("10.180.0.1", 80))));

        assertThat(rules.nat().chainNames()).containsExactly("KUBE-SERVICES", "KUBE-NODEPORTS", "KUBE-POSTROUTING",
                "KUBE-MARK-MASQ", "KUBE-SEP-SXIVWICOYRO3J4NJ", "KUBE-SVC-XPGD46QRK7WJZT7O");
        assertThat(rules.nat().chains().get("KUBE-SERVICES")).containsExactly(
                "-A KUBE-SERVICES -m comment --comment \"ns1/svc1:p80 cluster IP\" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O",
                "-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports; NOTE: this must be the last rule in this chain\" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS");
        assertThat(rules.nat().chains().get("KUBE-SVC-XPGD46QRK7WJZT7O")).containsExactly(
                "-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment \"ns1/svc1:p80 cluster IP\" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ",
                "-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment \"ns1/svc1:p80 -> 10.180.0.1:80\" -j KUBE-SEP-SXIVWICOYRO3J4NJ");
        assertThat(rules.nat().chains().get("KUBE-SEP-SXIVWICOYRO3J4NJ")).containsExactly(
                "-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ",
                "-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80");
        assertThat(rules.nat().chains().get("KUBE-POSTROUTING")).containsExactly(
                "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN",
                "-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000",
                "-A KUBE-POSTROUTING -m comment --comment \"kubernetes service traffic requiring SNAT\" -j MASQUERADE --random-fully");
        assertThat(rules.nat().chains().get("KUBE-MARK-MASQ")).containsExactly("-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000");
        assertThat(rules.filter().chains().get("KUBE-SERVICES")).isEmpty();
        assertThat(rules.filter().chains().get("KUBE-FORWARD")).hasSize(3);
    }

    @Test
    void withoutClusterCidrNothingIsMasqueradedForClusterIps() {
        IptablesRules rules = new RuleGenerator(Optional.empty()).generate(Map.of(SVC1, clusterIp(SVC1, "172.30.0.41", 80)),
                Map.of(SVC1, List.of(ready("10.180.0.1", 80))));

        assertThat(rules.nat().chains().get("KUBE-SVC-XPGD46QRK7WJZT7O")).noneMatch(rule -> rule.contains("KUBE-MARK-MASQ"));
    }

    @Test
    void endpointsArePickedWithDecreasingProbabilitiesInAddressOrder() {
        IptablesRules rules = generator.generate(Map.of(SVC1, clusterIp(SVC1, "172.30.0.41", 80)),
                Map.of(SVC1, List.of(ready("10.180.0.3", 8080), ready("10.180.0.1", 8080), ready("10.180.0.2", 8080))));

        List<String> serviceRules = rules.nat().chains().get("KUBE-SVC-XPGD46QRK7WJZT7O");
        assertThat(serviceRules).hasSize(4);
        assertThat(serviceRules.get(1)).contains("\"ns1/svc1:p80 -> 10.180.0.1:8080\" -m statistic --mode random --probability 0.3333333333 -j KUBE-SEP-");
        assertThat(serviceRules.get(2)).contains("\"ns1/svc1:p80 -> 10.180.0.2:8080\" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-");
        assertThat(serviceRules.get(3)).contains("\"ns1/svc1:p80 -> 10.180.0.3:8080\" -j KUBE-SEP-").doesNotContain("statistic");
        assertThat(rules.nat().chainNames().stream().filter(chain -> chain.startsWith("KUBE-SEP-"))).hasSize(3);
    }

    @Test
    void probabilitiesAreFormattedWithTenDecimals() {
        assertThat(RuleGenerator.probability(2)).isEqualTo("0.5000000000");
        assertThat(RuleGenerator.probability(3)).isEqualTo("0.3333333333");
        assertThat(RuleGenerator.probability(7)).isEqualTo("0.1428571429");
    }

    @Test
    void clientIpAffinityChecksRecentBeforeTheRandomPick() {
        ServicePortInfo service = new ServicePortInfo(SVC1, "TCP", "172.30.0.41", 80, 0, List.of(), 10800);
        IptablesRules rules = generator.generate(Map.of(SVC1, service),
                Map.of(SVC1, List.of(ready("10.180.0.1", 80), ready("10.180.0.2", 80))));

        String first = RuleGenerator.endpointChainName(SVC1, "tcp", "10.180.0.1:80");
        String second = RuleGenerator.endpointChainName(SVC1, "tcp", "10.180.0.2:80");
        assertThat(rules.nat().chains().get("KUBE-SVC-XPGD46QRK7WJZT7O")).containsExactly(
                "-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment \"ns1/svc1:p80 cluster IP\" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ",
                "-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment \"ns1/svc1:p80 -> 10.180.0.1:80\" -m recent --name " + first + " --rcheck --seconds 10800 --reap -j " + first,
                "-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment \"ns1/svc1:p80 -> 10.180.0.2:80\" -m recent --name " + second + " --rcheck --seconds 10800 --reap -j " + second,
                "-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment \"ns1/svc1:p80 -> 10.180.0.1:80\" -m statistic --mode random --probability 0.5000000000 -j " + first,
                "-A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment \"ns1/svc1:p80 -> 10.180.0.2:80\" -j " + second);
        assertThat(rules.nat().chains().get(first)).contains(
                "-A " + first + " -m comment --comment ns1/svc1:p80 -m recent --name " + first + " --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80");
    }

    @Test
    void nodePortGoesThroughTheExternalChainWhichMasquerades() {
        ServicePortInfo service = new ServicePortInfo(SVC2, "TCP", "172.30.0.42", 80, 3001, List.of(), 0);
        IptablesRules rules = generator.generate(Map.of(SVC2, service), Map.of(SVC2, List.of(ready("10.180.0.2", 80))));

        assertThat(rules.nat().chains().get("KUBE-NODEPORTS")).containsExactly(
                "-A KUBE-NODEPORTS -m comment --comment ns2/svc2:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT");
        assertThat(rules.nat().chains().get("KUBE-EXT-GNZBNJ2PO5MGZ6GT")).containsExactly(
                "-A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment \"masquerade traffic for ns2/svc2:p80 external destinations\" -j KUBE-MARK-MASQ",
                "-A KUBE-EXT-GNZBNJ2PO5MGZ6GT -j KUBE-SVC-GNZBNJ2PO5MGZ6GT");
    }

    @Test
    void externalTrafficPolicyLocalSendsOutsideTrafficOnlyToLocalEndpointsWithoutMasquerade() {
        ServicePortInfo service = new ServicePortInfo(SVC2, "TCP", "172.30.0.42", 80, 3001, List.of(), 0, true);
        EndpointInfo local = new EndpointInfo("10.180.0.2", 80, true, true, false, true);
        EndpointInfo remote = new EndpointInfo("10.180.1.2", 80, true, true, false, false);
        IptablesRules rules = generator.generate(Map.of(SVC2, service), Map.of(SVC2, List.of(remote, local)));

        String localChain = RuleGenerator.localChainName(SVC2, "tcp");
        assertThat(localChain).isEqualTo("KUBE-SVL-GNZBNJ2PO5MGZ6GT");
        assertThat(rules.nat().chains().get("KUBE-NODEPORTS")).containsExactly(
                "-A KUBE-NODEPORTS -m comment --comment ns2/svc2:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT");
        assertThat(rules.nat().chains().get("KUBE-EXT-GNZBNJ2PO5MGZ6GT")).containsExactly(
                "-A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment \"pod traffic for ns2/svc2:p80 external destinations\" -s 10.0.0.0/8 -j KUBE-SVC-GNZBNJ2PO5MGZ6GT",
                "-A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment \"masquerade LOCAL traffic for ns2/svc2:p80 external destinations\" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ",
                "-A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment \"route LOCAL traffic for ns2/svc2:p80 external destinations\" -m addrtype --src-type LOCAL -j KUBE-SVC-GNZBNJ2PO5MGZ6GT",
                "-A KUBE-EXT-GNZBNJ2PO5MGZ6GT -j KUBE-SVL-GNZBNJ2PO5MGZ6GT");
        assertThat(rules.nat().chains().get(localChain)).containsExactly(
                "-A KUBE-SVL-GNZBNJ2PO5MGZ6GT -m comment --comment \"ns2/svc2:p80 -> 10.180.0.2:80\" -j "
                        + RuleGenerator.endpointChainName(SVC2, "tcp", "10.180.0.2:80"));
        // The cluster IP still balances over every endpoint.
        assertThat(rules.nat().chains().get("KUBE-SVC-GNZBNJ2PO5MGZ6GT")).hasSize(3);
        assertThat(rules.filter().chains().get("KUBE-EXTERNAL-SERVICES")).isEmpty();
    }

    @Test
    void externalTrafficPolicyLocalWithoutLocalEndpointsDropsNodePortTraffic() {
        ServicePortInfo service = new ServicePortInfo(SVC2, "TCP", "172.30.0.42", 80, 3001, List.of(), 0, true);
        IptablesRules rules = generator.generate(Map.of(SVC2, service),
                Map.of(SVC2, List.of(new EndpointInfo("10.180.1.2", 80, true, true, false, false))));

        assertThat(rules.nat().chains().get("KUBE-NODEPORTS")).isEmpty();
        assertThat(rules.nat().chainNames()).doesNotContain(RuleGenerator.localChainName(SVC2, "tcp"));
        assertThat(rules.nat().chains().get("KUBE-EXT-GNZBNJ2PO5MGZ6GT")).hasSize(3).noneMatch(rule -> rule.contains("KUBE-SVL-"));
        assertThat(rules.filter().chains().get("KUBE-EXTERNAL-SERVICES")).containsExactly(
                "-A KUBE-EXTERNAL-SERVICES -m comment --comment \"ns2/svc2:p80 has no local endpoints\" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j DROP");
        // Inside the cluster the service still works.
        assertThat(rules.nat().chains().get("KUBE-SERVICES")).anyMatch(rule -> rule.contains("-j KUBE-SVC-GNZBNJ2PO5MGZ6GT"));
    }

    @Test
    void externalIpsJumpToTheExternalChain() {
        ServicePortInfo service = new ServicePortInfo(SVC2, "UDP", "172.30.0.42", 53, 0, List.of("192.168.99.1"), 0);
        IptablesRules rules = generator.generate(Map.of(SVC2, service), Map.of(SVC2, List.of(ready("10.180.0.2", 5353))));

        String externalChain = RuleGenerator.externalChainName(SVC2, "udp");
        assertThat(rules.nat().chains().get("KUBE-SERVICES")).contains(
                "-A KUBE-SERVICES -m comment --comment \"ns2/svc2:p80 external IP\" -m udp -p udp -d 192.168.99.1 --dport 53 -j " + externalChain);
        assertThat(rules.nat().chainNames()).contains(externalChain);
    }

    @Test
    void serviceWithoutEndpointsIsRejectedInTheFilterTable() {
        ServicePortInfo service = new ServicePortInfo(SVC2, "TCP", "172.30.0.42", 80, 3001, List.of("192.168.99.1"), 0);
        IptablesRules rules = generator.generate(Map.of(SVC2, service), Map.of());

        assertThat(rules.filter().chains().get("KUBE-SERVICES")).containsExactly(
                "-A KUBE-SERVICES -m comment --comment \"ns2/svc2:p80 has no endpoints\" -m tcp -p tcp -d 172.30.0.42 --dport 80 -j REJECT");
        assertThat(rules.filter().chains().get("KUBE-EXTERNAL-SERVICES")).containsExactly(
                "-A KUBE-EXTERNAL-SERVICES -m comment --comment \"ns2/svc2:p80 has no endpoints\" -m tcp -p tcp -d 192.168.99.1 --dport 80 -j REJECT",
                "-A KUBE-EXTERNAL-SERVICES -m comment --comment \"ns2/svc2:p80 has no endpoints\" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j REJECT");
        assertThat(rules.nat().chainNames()).noneMatch(chain -> chain.startsWith("KUBE-SVC-") || chain.startsWith("KUBE-EXT-"));
        assertThat(rules.nat().chains().get("KUBE-SERVICES")).hasSize(1);
    }

    @Test
    void notReadyEndpointsAreSkippedAndTerminatingServingOnesAreTheFallback() {
        EndpointInfo notReady = new EndpointInfo("10.180.0.5", 80, false, false, false);
        EndpointInfo terminating = new EndpointInfo("10.180.0.6", 80, false, true, true);
        EndpointInfo terminatingNotServing = new EndpointInfo("10.180.0.7", 80, false, false, true);

        assertThat(RuleGenerator.usableEndpoints(List.of(notReady, terminating, ready("10.180.0.1", 80))))
                .containsExactly(ready("10.180.0.1", 80));
        assertThat(RuleGenerator.usableEndpoints(List.of(notReady, terminating, terminatingNotServing))).containsExactly(terminating);
        assertThat(RuleGenerator.usableEndpoints(List.of(notReady, terminatingNotServing))).isEmpty();

        IptablesRules rules = generator.generate(Map.of(SVC1, clusterIp(SVC1, "172.30.0.41", 80)), Map.of(SVC1, List.of(notReady)));
        assertThat(rules.filter().chains().get("KUBE-SERVICES")).hasSize(1);
    }

    @Test
    void outputIsDeterministicWhateverTheInputOrder() {
        Map<ServicePortName, ServicePortInfo> forward = new LinkedHashMap<>();
        forward.put(SVC1, clusterIp(SVC1, "172.30.0.41", 80));
        forward.put(SVC2, clusterIp(SVC2, "172.30.0.42", 80));
        Map<ServicePortName, ServicePortInfo> backward = new LinkedHashMap<>();
        backward.put(SVC2, clusterIp(SVC2, "172.30.0.42", 80));
        backward.put(SVC1, clusterIp(SVC1, "172.30.0.41", 80));
        Map<ServicePortName, List<EndpointInfo>> endpoints = Map.of(
                SVC1, List.of(ready("10.180.0.1", 80), ready("10.180.0.2", 80)),
                SVC2, List.of(ready("10.180.0.4", 80), ready("10.180.0.3", 80)));

        assertThat(generator.generate(forward, endpoints)).isEqualTo(generator.generate(backward, endpoints));
        assertThat(generator.generate(forward, endpoints).restoreInput(null, Set.of()))
                .isEqualTo(generator.generate(backward, endpoints).restoreInput(null, Set.of()));
    }

    @Test
    void restoreInputWritesOnlyChangedChainsAndDeletesStaleOnesLast() {
        IptablesRules before = generator.generate(Map.of(SVC1, clusterIp(SVC1, "172.30.0.41", 80)),
                Map.of(SVC1, List.of(ready("10.180.0.1", 80), ready("10.180.0.2", 80))));
        IptablesRules after = generator.generate(Map.of(SVC1, clusterIp(SVC1, "172.30.0.41", 80)),
                Map.of(SVC1, List.of(ready("10.180.0.1", 80))));
        String removed = RuleGenerator.endpointChainName(SVC1, "tcp", "10.180.0.2:80");

        String input = after.restoreInput(before, Set.of(removed));

        assertThat(input).as("the unchanged filter table is left out").isEqualTo("""
                *nat
                :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]
                :%s - [0:0]
                -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
                -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ
                -X %s
                COMMIT
                """.formatted(removed, removed));
        assertThat(after.restoreInput(null, Set.of())).startsWith("*filter\n:KUBE-SERVICES - [0:0]\n:KUBE-EXTERNAL-SERVICES - [0:0]\n");
    }

    private static ServicePortInfo clusterIp(ServicePortName name, String clusterIp, int port) {
        return new ServicePortInfo(name, "TCP", clusterIp, port, 0, List.of(), 0);
    }

    private static EndpointInfo ready(String ip, int port) {
        return new EndpointInfo(ip, port, true, true, false);
    }
}
