package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How one stored resource is served: its main strategy, the strategies of update-style subresources
 * (e.g. {@code status}: same store, other rules), handlers of custom subresources (e.g. {@code scale},
 * {@code binding}) and, when the served version is kept in another resource's storage (events.k8s.io/v1
 * events are stored as core/v1 events), the conversion.
 *
 * @param strategy the rules of the main resource
 * @param subresourceStrategies strategies by subresource name, e.g. {@code "status" -> PodStatusStrategy}
 * @param subresourceHandlers custom subresources
 * @param conversion present when objects are stored in another resource's storage and form
 * @param writeHooks work done beside the main resource's writes (services: address allocation)
 */
public record ResourceDefinition(
        ResourceStrategy strategy,
        Map<String, ResourceStrategy> subresourceStrategies,
        List<SubresourceHandler> subresourceHandlers,
        Optional<VersionConversion> conversion,
        WriteHooks writeHooks) {
    public ResourceDefinition {
        requireNonNull(strategy, "strategy is null");
        subresourceStrategies = Map.copyOf(requireNonNull(subresourceStrategies, "subresourceStrategies is null"));
        subresourceHandlers = List.copyOf(requireNonNull(subresourceHandlers, "subresourceHandlers is null"));
        requireNonNull(conversion, "conversion is null");
        requireNonNull(writeHooks, "writeHooks is null");
    }

    /** A definition without write hooks. */
    public ResourceDefinition(
            ResourceStrategy strategy,
            Map<String, ResourceStrategy> subresourceStrategies,
            List<SubresourceHandler> subresourceHandlers,
            Optional<VersionConversion> conversion) {
        this(strategy, subresourceStrategies, subresourceHandlers, conversion, WriteHooks.NONE);
    }

    /** This definition with other custom subresource handlers, keeping everything else. */
    public ResourceDefinition withSubresourceHandlers(List<SubresourceHandler> handlers) {
        return new ResourceDefinition(strategy, subresourceStrategies, handlers, conversion, writeHooks);
    }

    public static ResourceDefinition of(ResourceStrategy strategy) {
        return new ResourceDefinition(strategy, Map.of(), List.of(), Optional.empty());
    }

    public static ResourceDefinition withStatus(ResourceStrategy strategy, ResourceStrategy statusStrategy) {
        return new ResourceDefinition(strategy, Map.of("status", statusStrategy), List.of(), Optional.empty());
    }
}
