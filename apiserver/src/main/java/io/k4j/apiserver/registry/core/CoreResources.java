package io.k4j.apiserver.registry.core;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.core.configmap.ConfigMapStrategy;
import io.k4j.apiserver.registry.core.endpoints.EndpointsStrategy;
import io.k4j.apiserver.registry.core.event.EventStrategy;
import io.k4j.apiserver.registry.core.limitrange.LimitRangeStrategy;
import io.k4j.apiserver.registry.core.namespace.NamespaceFinalizeStrategy;
import io.k4j.apiserver.registry.core.namespace.NamespaceStatusStrategy;
import io.k4j.apiserver.registry.core.namespace.NamespaceStrategy;
import io.k4j.apiserver.registry.core.node.NodeStrategy;
import io.k4j.apiserver.registry.core.persistentvolume.PersistentVolumeStrategy;
import io.k4j.apiserver.registry.core.persistentvolumeclaim.PersistentVolumeClaimStrategy;
import io.k4j.apiserver.registry.core.pod.PodBindingHandler;
import io.k4j.apiserver.registry.core.pod.PodBindingStrategy;
import io.k4j.apiserver.registry.core.pod.PodEvictionHandler;
import io.k4j.apiserver.registry.core.pod.PodStatusStrategy;
import io.k4j.apiserver.registry.core.pod.PodStrategy;
import io.k4j.apiserver.registry.core.podtemplate.PodTemplateStrategy;
import io.k4j.apiserver.registry.core.replicationcontroller.ReplicationControllerStrategy;
import io.k4j.apiserver.registry.core.resourcequota.ResourceQuotaStrategy;
import io.k4j.apiserver.registry.core.secret.SecretStrategy;
import io.k4j.apiserver.registry.core.service.ClusterIpRange;
import io.k4j.apiserver.registry.core.service.NodePortRange;
import io.k4j.apiserver.registry.core.service.ServiceAllocator;
import io.k4j.apiserver.registry.core.service.ServiceStrategy;
import io.k4j.apiserver.registry.core.serviceaccount.ServiceAccountStrategy;
import io.k4j.apiserver.registry.generic.Registry;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The definitions of the core/v1 resources whose rules live in this package, for the launcher to serve. The
 * pod eviction handler reads PodDisruptionBudgets through the registry, so the registry may be filled after this
 * is built. Thread-safe (immutable).
 */
public final class CoreResources {
    private final Registry registry;
    private final InstantSource clock;
    private final Duration eventTimeToLive;
    private final ServiceAllocator serviceAllocator;

    public CoreResources(Registry registry, InstantSource clock) {
        this(registry, clock, EventStrategy.DEFAULT_TIME_TO_LIVE);
    }

    /**
     * @param eventTimeToLive how long an event lives after its last write ({@code --event-ttl})
     */
    public CoreResources(Registry registry, InstantSource clock, Duration eventTimeToLive) {
        this(registry, clock, eventTimeToLive, new ServiceAllocator(ClusterIpRange.DEFAULT, NodePortRange.DEFAULT));
    }

    /**
     * @param serviceAllocator the cluster IPs and node ports services get ({@code --service-cluster-ip-range},
     *     {@code --service-node-port-range})
     */
    public CoreResources(Registry registry, InstantSource clock, Duration eventTimeToLive, ServiceAllocator serviceAllocator) {
        this.registry = requireNonNull(registry, "registry is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.eventTimeToLive = requireNonNull(eventTimeToLive, "eventTimeToLive is null");
        this.serviceAllocator = requireNonNull(serviceAllocator, "serviceAllocator is null");
    }

    /** The catalogue's entry for a core/v1 resource; fails when the catalogue lacks it (a programming error). */
    public static ResourceType type(String plural) {
        return BuiltinResources.byResource(new GroupVersionResource("", "v1", plural))
                .orElseThrow(() -> new IllegalStateException("the catalogue has no core/v1 resource " + plural));
    }

    public List<ResourceDefinition> definitions() {
        NamespaceStrategy namespaces = new NamespaceStrategy(clock);
        PodStrategy pods = new PodStrategy(clock);
        NodeStrategy nodes = new NodeStrategy(clock);
        ServiceStrategy services = new ServiceStrategy(clock);
        ResourceQuotaStrategy quotas = new ResourceQuotaStrategy(clock);
        ReplicationControllerStrategy controllers = new ReplicationControllerStrategy(clock);
        PersistentVolumeStrategy volumes = new PersistentVolumeStrategy(clock);
        PersistentVolumeClaimStrategy claims = new PersistentVolumeClaimStrategy(clock);
        return List.of(
                new ResourceDefinition(namespaces,
                        Map.of("status", new NamespaceStatusStrategy(namespaces), "finalize", new NamespaceFinalizeStrategy(namespaces)),
                        List.of(), Optional.empty()),
                new ResourceDefinition(pods,
                        Map.of("status", new PodStatusStrategy(pods), PodBindingStrategy.SUBRESOURCE, new PodBindingStrategy(pods)),
                        List.of(new PodBindingHandler(clock), new PodEvictionHandler(registry, clock)),
                        Optional.empty()),
                ResourceDefinition.withStatus(nodes, nodes.statusStrategy()),
                new ResourceDefinition(services, Map.of("status", services.statusStrategy()), List.of(), Optional.empty(), serviceAllocator),
                ResourceDefinition.of(new EndpointsStrategy(clock)),
                ResourceDefinition.of(new ConfigMapStrategy(clock)),
                ResourceDefinition.of(new SecretStrategy(clock)),
                ResourceDefinition.of(new ServiceAccountStrategy(clock)),
                ResourceDefinition.of(new EventStrategy(clock, eventTimeToLive)),
                ResourceDefinition.of(new LimitRangeStrategy()),
                ResourceDefinition.withStatus(quotas, quotas.statusStrategy()),
                ResourceDefinition.withStatus(controllers, controllers.statusStrategy()),
                ResourceDefinition.withStatus(volumes, volumes.statusStrategy()),
                ResourceDefinition.withStatus(claims, claims.statusStrategy()),
                ResourceDefinition.of(new PodTemplateStrategy()));
    }
}
