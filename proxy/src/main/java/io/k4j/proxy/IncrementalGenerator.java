package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Generates the same rules as {@link RuleGenerator#generate} from scratch, but regenerates only the service ports whose
 * service or endpoints changed since the previous generation and reuses the others' {@link ServicePortRules} as they
 * are, as upstream's proxier regenerates only the services its change trackers report. The shared top-level chains
 * are rebuilt from the per-service-port lines every time (cheap: they are concatenations of existing strings). Reused
 * rules are the very same list instances as before, so comparing a generation with what was applied costs an identity
 * check per unchanged chain. The cache depends only on its inputs, never on what reached the kernel: a failed write
 * does not invalidate it. Not thread-safe: one sync loop owns it.
 */
final class IncrementalGenerator {
    private final RuleGenerator generator;
    /** The rules of each service port, in name order for the shared chains: touched only where something changed. */
    private final SortedMap<ServicePortName, ServicePortRules> rules = new TreeMap<>();
    /** The own chains of every service port in {@link #rules}, by name. */
    private final SortedMap<String, List<String>> serviceChains = new TreeMap<>();

    IncrementalGenerator(RuleGenerator generator) {
        this.generator = requireNonNull(generator, "generator is null");
    }

    /** What one generation found: the rules, and the service ports whose rules were added, regenerated or removed. */
    record Generation(IptablesRules rules, Map<ServicePortName, ServicePortRules> servicePortRules, List<Change> changes) {
        Generation {
            requireNonNull(rules, "rules is null");
            requireNonNull(servicePortRules, "servicePortRules is null");
            changes = List.copyOf(changes);
        }
    }

    /** One service port's rules before and after a generation (empty: it did not exist). */
    record Change(ServicePortName name, Optional<ServicePortRules> before, Optional<ServicePortRules> after) {
        Change {
            requireNonNull(name, "name is null");
            requireNonNull(before, "before is null");
            requireNonNull(after, "after is null");
        }
    }

    /**
     * The rules for {@code services}, each with the endpoints of its port (missing: none), equal to what
     * {@code RuleGenerator.generate(services, endpoints)} returns.
     */
    Generation generate(Map<ServicePortName, ServicePortInfo> services, Map<ServicePortName, List<EndpointInfo>> endpoints) {
        List<Change> changes = new ArrayList<>();
        Set<ServicePortName> removed = new HashSet<>(rules.keySet());
        removed.removeAll(services.keySet());
        for (ServicePortName name : removed) {
            ServicePortRules before = rules.remove(name);
            serviceChains.keySet().removeAll(before.chains().keySet());
            changes.add(new Change(name, Optional.of(before), Optional.empty()));
        }
        for (Map.Entry<ServicePortName, ServicePortInfo> entry : services.entrySet()) {
            ServicePortName name = entry.getKey();
            List<EndpointInfo> serviceEndpoints = endpoints.getOrDefault(name, List.of());
            ServicePortRules before = rules.get(name);
            if (before != null && before.generatedFrom(entry.getValue(), serviceEndpoints)) {
                continue;
            }
            ServicePortRules after = generator.serviceRules(entry.getValue(), serviceEndpoints);
            if (before != null) {
                serviceChains.keySet().removeAll(before.chains().keySet());
            }
            serviceChains.putAll(after.chains());
            rules.put(name, after);
            changes.add(new Change(name, Optional.ofNullable(before), Optional.of(after)));
        }
        // Copying a sorted map into a TreeMap is linear: no comparisons.
        return new Generation(generator.assemble(rules.values(), serviceChains), Collections.unmodifiableMap(new TreeMap<>(rules)),
                changes);
    }
}
