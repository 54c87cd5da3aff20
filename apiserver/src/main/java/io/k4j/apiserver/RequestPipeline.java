package io.k4j.apiserver;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.discovery.DiscoveryDocuments;
import io.k4j.apiserver.discovery.HealthEndpoint;
import io.k4j.apiserver.discovery.OpenApiSource;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.websocket.WatchOverWebSocket;
import io.k4j.apiserver.websocket.WebSockets;
import io.k4j.apiserver.endpoints.Representation;
import io.k4j.apiserver.endpoints.RequestInfo;
import io.k4j.apiserver.endpoints.RequestInfoResolver;
import io.k4j.apiserver.endpoints.ResourceHandler;
import io.k4j.apiserver.endpoints.Responses;
import io.k4j.apiserver.filters.AuditLog;
import io.k4j.apiserver.filters.AuthenticationFilter;
import io.k4j.apiserver.filters.AuthorizationFilter;
import io.k4j.apiserver.filters.Impersonator;
import io.k4j.apiserver.metrics.ApiServerMetrics;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request pipeline in upstream's order: request info, authentication, impersonation, authorization, then
 * the API (resources, discovery, health, metrics, OpenAPI, extra paths); every request is audited and measured.
 * Independent of the HTTP server. Thread-safe.
 */
final class RequestPipeline {
    private static final Logger LOG = LoggerFactory.getLogger(RequestPipeline.class);
    private static final String AGGREGATED_V2 = "apidiscovery.k8s.io/v2";
    private static final String AGGREGATED_V2_BETA1 = "apidiscovery.k8s.io/v2beta1";

    private final RequestInfoResolver resolver = new RequestInfoResolver();
    private final AuthenticationFilter authentication;
    private final Optional<Impersonator> impersonator;
    private final AuthorizationFilter authorization;
    private final AuditLog audit = new AuditLog();
    private final ApiServerMetrics metrics;
    private final ResourceHandler resources;
    private final DiscoveryDocuments discovery;
    private final VersionInfo version;
    private final Optional<OpenApiSource> openApi;
    private final Map<String, NonResourceHandler> extraHandlers;
    private final List<PreAuthenticationHandler> preAuthenticationHandlers;
    private final List<HealthEndpoint> healthEndpoints;
    private final Function<HttpExchange, String> serverAddress;

    RequestPipeline(AuthenticationFilter authentication, Optional<Impersonator> impersonator, AuthorizationFilter authorization, ApiServerMetrics metrics,
            ResourceHandler resources, DiscoveryDocuments discovery, VersionInfo version, Optional<OpenApiSource> openApi,
            Map<String, NonResourceHandler> extraHandlers, List<PreAuthenticationHandler> preAuthenticationHandlers, List<HealthEndpoint> healthEndpoints, Function<HttpExchange, String> serverAddress) {
        this.authentication = requireNonNull(authentication, "authentication is null");
        this.impersonator = requireNonNull(impersonator, "impersonator is null");
        this.authorization = requireNonNull(authorization, "authorization is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.resources = requireNonNull(resources, "resources is null");
        this.discovery = requireNonNull(discovery, "discovery is null");
        this.version = requireNonNull(version, "version is null");
        this.openApi = requireNonNull(openApi, "openApi is null");
        this.extraHandlers = Map.copyOf(extraHandlers);
        this.preAuthenticationHandlers = List.copyOf(preAuthenticationHandlers);
        this.healthEndpoints = List.copyOf(healthEndpoints);
        this.serverAddress = requireNonNull(serverAddress, "serverAddress is null");
    }

    /** Handles one exchange completely; never throws for API errors. */
    void handle(HttpExchange exchange, List<X509Certificate> clientCertificates, String sourceAddress, StatusRecorder status) {
        long start = System.nanoTime();
        RequestInfo info = RequestInfo.nonResource(exchange.path(), exchange.method().toLowerCase(java.util.Locale.ROOT));
        UserInfo user = null;
        try {
            info = resolver.resolve(exchange.method(), exchange.path(), exchange.query());
            Optional<PreAuthenticationHandler> ownCredentials = preAuthenticationHandler(exchange.path());
            if (ownCredentials.isPresent()) {
                ownCredentials.get().handle(exchange);
                return;
            }
            AuthenticationRequest credentials = new AuthenticationRequest(exchange.headers(), clientCertificates);
            user = authentication.authenticate(credentials);
            if (impersonator.isPresent()) {
                user = impersonator.get().impersonate(user, credentials);
            }
            authorization.authorize(user, info);
            if (info.resourceRequest()) {
                // A watch that asks for WebSocket gets its events as messages (as upstream); other requests that ask
                // for it are served as usual, and a streaming subresource (exec, attach, port-forward) accepts the
                // upgrade itself.
                boolean webSocketWatch = info.verb().equals("watch") && WebSockets.isUpgradeRequest(exchange);
                resources.handle(webSocketWatch ? new WatchOverWebSocket(exchange) : exchange, info, user);
            } else {
                serveNonResource(exchange, info);
            }
        } catch (StatusException e) {
            respondWithError(exchange, e);
        } catch (IOException e) {
            LOG.debug("I/O error serving {} {}: {}", exchange.method(), exchange.path(), e.toString());
        } catch (RuntimeException e) {
            LOG.error("internal error serving {} {}", exchange.method(), exchange.path(), e);
            respondWithError(exchange, StatusException.internalError(e.toString()));
        } finally {
            long nanos = System.nanoTime() - start;
            boolean dryRun = exchange.query().containsKey("dryRun");
            metrics.observeRequest(info, dryRun, status.status(), nanos);
            audit.record(user, info, exchange.method(), uri(exchange), sourceAddress, exchange.header("user-agent"), status.status(), nanos);
        }
    }

    private Optional<PreAuthenticationHandler> preAuthenticationHandler(String path) {
        for (PreAuthenticationHandler handler : preAuthenticationHandlers) {
            if (path.startsWith(handler.pathPrefix())) {
                return Optional.of(handler);
            }
        }
        return Optional.empty();
    }

    /** The response status of the exchange, as the HTTP layer saw it. */
    interface StatusRecorder {
        int status();
    }

    private static String uri(HttpExchange exchange) {
        StringBuilder uri = new StringBuilder(exchange.path());
        char separator = '?';
        for (Map.Entry<String, List<String>> parameter : exchange.query().entrySet()) {
            for (String value : parameter.getValue()) {
                uri.append(separator).append(parameter.getKey()).append('=').append(value);
                separator = '&';
            }
        }
        return uri.toString();
    }

    private static void respondWithError(HttpExchange exchange, StatusException error) {
        if (exchange.committed()) {
            return;
        }
        try {
            Responses.writeError(exchange, error);
        } catch (IOException e) {
            LOG.debug("could not send error: {}", e.toString());
        }
    }

    private void serveNonResource(HttpExchange exchange, RequestInfo info) throws IOException {
        String path = exchange.path();
        if (path.length() > 1 && path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        NonResourceHandler extra = extraHandlers.get(path);
        if (extra != null) {
            requireGet(exchange);
            NonResourceHandler.Response response = extra.get(exchange.query());
            exchange.respond(response.status(), response.contentType(), response.body());
            return;
        }
        switch (path) {
            case "/api" -> serveDiscoveryRoot(exchange, true);
            case "/apis" -> serveDiscoveryRoot(exchange, false);
            case "/version" -> {
                requireGet(exchange);
                Responses.write(exchange, 200, version.toJson(), false);
            }
            case "/metrics" -> {
                requireGet(exchange);
                exchange.respond(200, ApiServerMetrics.contentType(), metrics.scrape());
            }
            case "/openapi/v2" -> {
                requireGet(exchange);
                OpenApiSource source = openApi.orElseThrow(Responses::notFound);
                exchange.respond(200, "application/json", source.v2());
            }
            case "/openapi/v3" -> {
                requireGet(exchange);
                OpenApiSource source = openApi.orElseThrow(Responses::notFound);
                exchange.respond(200, "application/json", source.v3Index());
            }
            default -> serveOther(exchange, path);
        }
    }

    private void serveOther(HttpExchange exchange, String path) throws IOException {
        if (path.startsWith("/openapi/v3/")) {
            requireGet(exchange);
            OpenApiSource source = openApi.orElseThrow(Responses::notFound);
            byte[] document = source.v3(path.substring("/openapi/v3/".length())).orElseThrow(Responses::notFound);
            exchange.respond(200, "application/json", document);
            return;
        }
        for (HealthEndpoint endpoint : healthEndpoints) {
            String root = "/" + endpoint.name();
            if (path.equals(root)) {
                requireGet(exchange);
                Set<String> excluded = new HashSet<>(exchange.query().getOrDefault("exclude", List.of()));
                HealthEndpoint.Answer answer = endpoint.all(exchange.query().containsKey("verbose"), excluded);
                Responses.writeText(exchange, answer.status(), answer.body());
                return;
            }
            if (path.startsWith(root + "/")) {
                requireGet(exchange);
                HealthEndpoint.Answer answer = endpoint.one(path.substring(root.length() + 1)).orElseThrow(Responses::notFound);
                Responses.writeText(exchange, answer.status(), answer.body());
                return;
            }
        }
        String[] parts = path.substring(1).split("/");
        if (parts.length == 2 && parts[0].equals("api")) {
            requireGet(exchange);
            ObjectNode list = discovery.apiResourceList("", parts[1]).orElseThrow(Responses::notFound);
            Responses.write(exchange, 200, list, false);
            return;
        }
        if (parts.length == 2 && parts[0].equals("apis")) {
            requireGet(exchange);
            Responses.write(exchange, 200, discovery.apiGroup(parts[1]).orElseThrow(Responses::notFound), false);
            return;
        }
        if (parts.length == 3 && parts[0].equals("apis")) {
            requireGet(exchange);
            Responses.write(exchange, 200, discovery.apiResourceList(parts[1], parts[2]).orElseThrow(Responses::notFound), false);
            return;
        }
        throw Responses.notFound();
    }

    private void serveDiscoveryRoot(HttpExchange exchange, boolean core) throws IOException {
        requireGet(exchange);
        exchange.addHeader("Vary", "Accept");
        for (Representation.MediaType type : Representation.parseAccept(exchange.header("accept"))) {
            if (!type.type().equals("application/json") && !type.type().equals("*/*")) {
                continue;
            }
            if (type.parameter("as").isEmpty()) {
                break;
            }
            if (type.parameter("as").equals(DiscoveryDocuments.AGGREGATED_AS) && type.parameter("g").equals("apidiscovery.k8s.io")) {
                String version = type.parameter("v");
                if (version.equals("v2") || version.equals("v2beta1")) {
                    String apiVersion = version.equals("v2") ? AGGREGATED_V2 : AGGREGATED_V2_BETA1;
                    exchange.respond(200, "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=" + DiscoveryDocuments.AGGREGATED_AS,
                            Json.write(discovery.aggregated(core, apiVersion)));
                    return;
                }
            }
        }
        Responses.write(exchange, 200, core ? discovery.apiVersions(serverAddress.apply(exchange)) : discovery.apiGroupList(), false);
    }

    private static void requireGet(HttpExchange exchange) {
        if (!exchange.method().equals("GET") && !exchange.method().equals("HEAD")) {
            throw new StatusException(io.k4j.api.errors.StatusReason.METHOD_NOT_ALLOWED, 405, "the server does not allow this method on the requested resource",
                    null, null, null, List.of(), null);
        }
    }
}
