package io.k4j.dns;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.informers.InformerFactory;
import io.k4j.dns.records.ClusterAnswers;
import io.k4j.dns.records.RecordIndex;
import io.k4j.dns.server.DnsServer;
import io.k4j.dns.server.QueryHandler;
import io.k4j.dns.server.UpstreamForwarder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster DNS: shared informers of Services and EndpointSlices keep a {@link RecordIndex} current, and a
 * {@link DnsServer} answers from it (forwarding other names upstream), as CoreDNS with the kubernetes and forward
 * plugins. Thread-safe; start once, close once.
 */
public final class ClusterDns implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("dns");

    private final ClusterDnsConfig config;
    private final InformerFactory informers;
    private final RecordIndex index;
    private final DnsServer server;
    private final Optional<DnsServer> nodeServer;

    public ClusterDns(KubernetesClient client, ClusterDnsConfig config, InstantSource clock) {
        this.config = requireNonNull(config, "config is null");
        this.informers = new InformerFactory(requireNonNull(client, "client is null"));
        this.index = new RecordIndex(clock);
        ClusterAnswers answers = new ClusterAnswers(index, config.clusterDomain(), config.ttl(), config.serviceAddress());
        QueryHandler handler = new QueryHandler(answers, new UpstreamForwarder(config.upstreams(), config.forwardTimeout()));
        this.server = new DnsServer(config.bindAddress(), handler::reply, config.limits());
        this.nodeServer = config.nodeBindAddress().map(address -> new DnsServer(address, handler::reply, config.limits()));
    }

    /**
     * Starts watching, waits up to {@code cacheSyncTimeout} for the first lists (answering before would return
     * NXDOMAIN for names that exist), then listens; after the timeout it listens anyway, as CoreDNS does.
     */
    public void start(Duration cacheSyncTimeout) throws IOException, InterruptedException {
        informers.informer(Service.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Service service) {
                index.putService(service);
            }

            @Override
            public void onUpdate(Service oldService, Service newService) {
                index.putService(newService);
            }

            @Override
            public void onDelete(Service service, boolean deletedFinalStateUnknown) {
                index.removeService(service.getMetadata().getNamespace(), service.getMetadata().getName());
            }
        });
        informers.informer(EndpointSlice.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(EndpointSlice slice) {
                index.putEndpointSlice(slice);
            }

            @Override
            public void onUpdate(EndpointSlice oldSlice, EndpointSlice newSlice) {
                index.putEndpointSlice(newSlice);
            }

            @Override
            public void onDelete(EndpointSlice slice, boolean deletedFinalStateUnknown) {
                index.removeEndpointSlice(slice.getMetadata().getNamespace(), slice.getMetadata().getName());
            }
        });
        informers.start();
        if (!informers.waitForCacheSync(cacheSyncTimeout)) {
            LOG.warn("cluster DNS starts before its Service and EndpointSlice caches synced ({} passed)", cacheSyncTimeout);
        }
        if (config.upstreams().isEmpty()) {
            LOG.warn("cluster DNS has no upstream resolvers: names outside {} get SERVFAIL", config.clusterDomain());
        }
        server.start();
        if (nodeServer.isPresent()) {
            try {
                nodeServer.get().start();
            } catch (IOException e) {
                server.close();
                throw e;
            }
        }
    }

    /** Where the server listens. */
    public InetSocketAddress address() {
        return server.address();
    }

    /** Where the server listens for pods (the chosen port when started with port 0), if it does. */
    public Optional<InetSocketAddress> nodeAddress() {
        return nodeServer.map(DnsServer::address);
    }

    @Override
    public void close() {
        nodeServer.ifPresent(DnsServer::close);
        server.close();
        informers.close();
    }
}
