package io.k4j.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IncrementalGeneratorTest {
    private static final ServicePortName WEB = new ServicePortName("default", "web", "http");
    private static final ServicePortName API = new ServicePortName("default", "api", "");
    private static final ServicePortName DNS = new ServicePortName("kube-system", "kube-dns", "dns");

    private final RuleGenerator ruleGenerator = new RuleGenerator(Optional.of("10.42.0.0/16"));
    private final IncrementalGenerator generator = new IncrementalGenerator(ruleGenerator);
    private final Map<ServicePortName, ServicePortInfo> services = new LinkedHashMap<>();
    private final Map<ServicePortName, List<EndpointInfo>> endpoints = new HashMap<>();

    @Test
    void anEndpointChangeRegeneratesOnlyThatServicePortsChains() {
        services.put(WEB, clusterIp(WEB, "10.43.0.10", 80));
        services.put(API, clusterIp(API, "10.43.0.11", 443));
        endpoints.put(WEB, List.of(ready("10.42.0.2", 8080), ready("10.42.0.3", 8080)));
        endpoints.put(API, List.of(ready("10.42.0.4", 8443)));
        IncrementalGenerator.Generation first = generator.generate(services, endpoints);

        endpoints.put(WEB, List.of(ready("10.42.0.2", 8080), ready("10.42.0.5", 8080)));
        IncrementalGenerator.Generation second = generator.generate(services, endpoints);

        assertThat(second.changes()).extracting(IncrementalGenerator.Change::name).containsExactly(WEB);
        String webChain = RuleGenerator.serviceChainName(WEB, "tcp");
        assertThat(second.rules().nat().chains().get(webChain)).isNotEqualTo(first.rules().nat().chains().get(webChain));
        // The other service port's rules are reused as they were, not generated again.
        assertThat(second.servicePortRules().get(API)).isSameAs(first.servicePortRules().get(API));
        first.servicePortRules().get(API).chains().forEach((chain, rules) ->
                assertThat(second.rules().nat().chains().get(chain)).isSameAs(rules));
        String input = second.rules().restoreInput(first.rules(), Set.of());
        assertThat(input).contains(":" + webChain, "--to-destination 10.42.0.5:8080")
                .doesNotContain(RuleGenerator.serviceChainName(API, "tcp"));
        assertThat(second.rules()).isEqualTo(ruleGenerator.generate(services, endpoints));
    }

    @Test
    void unchangedInputRegeneratesNothing() {
        services.put(WEB, clusterIp(WEB, "10.43.0.10", 80));
        endpoints.put(WEB, List.of(ready("10.42.0.2", 8080)));
        IncrementalGenerator.Generation first = generator.generate(services, endpoints);

        IncrementalGenerator.Generation second = generator.generate(Map.copyOf(services), Map.of(WEB, List.of(ready("10.42.0.2", 8080))));

        assertThat(second.changes()).isEmpty();
        assertThat(second.rules()).isEqualTo(first.rules());
        assertThat(second.rules().restoreInput(first.rules(), Set.of())).isEmpty();
    }

    @Test
    void aRemovedServicePortsChainsAreGoneAndReportedWithTheirRules() {
        services.put(WEB, new ServicePortInfo(WEB, "TCP", "10.43.0.10", 80, 30080, List.of(), 0));
        services.put(API, clusterIp(API, "10.43.0.11", 443));
        endpoints.put(WEB, List.of(ready("10.42.0.2", 8080)));
        endpoints.put(API, List.of(ready("10.42.0.4", 8443)));
        IncrementalGenerator.Generation first = generator.generate(services, endpoints);
        ServicePortRules webRules = first.servicePortRules().get(WEB);
        assertThat(webRules.chains()).hasSize(3);

        services.remove(WEB);
        IncrementalGenerator.Generation second = generator.generate(services, endpoints);

        assertThat(second.changes()).containsExactly(new IncrementalGenerator.Change(WEB, Optional.of(webRules), Optional.empty()));
        assertThat(second.rules().nat().chainNames()).doesNotContainAnyElementsOf(webRules.chains().keySet());
        assertThat(second.rules().nat().chains().get(RuleGenerator.KUBE_NODEPORTS)).isEmpty();
        assertThat(second.rules().nat().chains().get(RuleGenerator.KUBE_SERVICES)).noneMatch(rule -> rule.contains("default/web"));
        assertThat(second.rules()).isEqualTo(ruleGenerator.generate(services, endpoints));
    }

    @Test
    void aServiceChangeRegeneratesItsRulesAndTheSharedChains() {
        services.put(WEB, clusterIp(WEB, "10.43.0.10", 80));
        endpoints.put(WEB, List.of(ready("10.42.0.2", 8080)));
        generator.generate(services, endpoints);

        services.put(WEB, clusterIp(WEB, "10.43.0.20", 80));
        IncrementalGenerator.Generation second = generator.generate(services, endpoints);

        assertThat(second.changes()).extracting(IncrementalGenerator.Change::name).containsExactly(WEB);
        assertThat(second.rules().nat().chains().get(RuleGenerator.KUBE_SERVICES)).anyMatch(rule -> rule.contains("-d 10.43.0.20 "))
                .noneMatch(rule -> rule.contains("-d 10.43.0.10 "));
    }

    @Test
    void matchesAFromScratchGenerationThroughRandomChanges() {
        Random random = new Random(7);
        List<ServicePortName> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            names.add(new ServicePortName("ns" + i % 3, "svc" + i, i % 4 == 0 ? "" : "p" + i % 2));
        }
        IptablesRules applied = null;
        for (int round = 0; round < 150; round++) {
            int changesThisRound = 1 + random.nextInt(5);
            for (int change = 0; change < changesThisRound; change++) {
                ServicePortName name = names.get(random.nextInt(names.size()));
                switch (random.nextInt(6)) {
                    case 0 -> services.remove(name);
                    case 1 -> endpoints.remove(name);
                    case 2, 3 -> endpoints.put(name, randomEndpoints(random));
                    default -> services.put(name, randomService(random, name));
                }
            }
            IncrementalGenerator.Generation generation = generator.generate(services, endpoints);
            IptablesRules scratch = ruleGenerator.generate(services, endpoints);

            assertThat(generation.rules()).isEqualTo(scratch);
            // Equal maps may still differ in order: the written text must not.
            assertThat(generation.rules().nat().chainNames()).containsExactlyElementsOf(scratch.nat().chainNames());
            if (applied != null) {
                assertThat(generation.rules().restoreInput(applied, Set.of())).isEqualTo(scratch.restoreInput(applied, Set.of()));
            }
            assertThat(generation.servicePortRules().keySet()).isEqualTo(services.keySet());
            applied = generation.rules();
        }
    }

    private static ServicePortInfo randomService(Random random, ServicePortName name) {
        String protocol = random.nextInt(4) == 0 ? "UDP" : "TCP";
        int nodePort = random.nextBoolean() ? 30000 + random.nextInt(100) : 0;
        List<String> externalIps = random.nextInt(4) == 0 ? List.of("192.0.2." + random.nextInt(250)) : List.of();
        int affinity = random.nextInt(5) == 0 ? 10800 : 0;
        boolean local = (nodePort > 0 || !externalIps.isEmpty()) && random.nextBoolean();
        return new ServicePortInfo(name, protocol, "10.43.0." + random.nextInt(250), 1 + random.nextInt(1000), nodePort, externalIps,
                affinity, local);
    }

    private static List<EndpointInfo> randomEndpoints(Random random) {
        List<EndpointInfo> list = new ArrayList<>();
        int count = random.nextInt(5);
        for (int i = 0; i < count; i++) {
            boolean ready = random.nextInt(4) != 0;
            boolean terminating = !ready && random.nextBoolean();
            list.add(new EndpointInfo("10.42." + random.nextInt(3) + "." + random.nextInt(20), 8080, ready, ready || terminating,
                    terminating, random.nextBoolean()));
        }
        return list;
    }

    private static ServicePortInfo clusterIp(ServicePortName name, String clusterIp, int port) {
        return new ServicePortInfo(name, "TCP", clusterIp, port, 0, List.of(), 0);
    }

    private static EndpointInfo ready(String ip, int port) {
        return new EndpointInfo(ip, port, true, true, false);
    }
}
