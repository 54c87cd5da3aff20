package io.k4j.apiserver;

import static java.util.Objects.requireNonNull;

import io.k4j.api.patch.StrategicMergePatch;
import io.k4j.api.schema.UnknownFields;
import io.k4j.apiserver.admission.AdmissionPlugin;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authorization.Authorizer;
import io.k4j.apiserver.discovery.BuiltinOpenApi;
import io.k4j.apiserver.discovery.HealthCheck;
import io.k4j.apiserver.discovery.OpenApiSource;
import io.k4j.apiserver.endpoints.StrategicMergePatcher;
import io.k4j.apiserver.endpoints.UnknownFieldDetector;
import io.k4j.apiserver.filters.Impersonator;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.storage.KeyValueStore;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Everything an {@link ApiServer} is built from. Use {@link #builder(KeyValueStore, KeyStore, String)}.
 *
 * @param host the address to listen on, e.g. {@code 0.0.0.0} or {@code 127.0.0.1}
 * @param port the port, 0 for any free one
 * @param servingKeyStore holds the serving certificate and its key
 * @param servingKeyPassword the password of the key store and key
 * @param clientCaCertificates client certificates signed by these are accepted (TLS client auth is "want":
 *     asked for, not required); empty to not ask for client certificates
 * @param authenticators tried in order
 * @param allowAnonymous whether requests without credentials are {@code system:anonymous}
 * @param impersonator handles impersonation headers, when present
 * @param authorizers asked in order
 * @param admissionPlugins in their one explicit order
 * @param storage the key-value store
 * @param resources the served stored resources
 * @param createOnlyResources the served create-only resources (reviews)
 * @param nonResourceHandlers extra paths
 * @param preAuthenticationHandlers paths served before authentication, with credentials of their own (node join)
 * @param version what {@code /version} answers
 * @param openApi the OpenAPI documents, when available (the builder defaults to the built-in schemas')
 * @param unknownFields detects unknown fields for {@code fieldValidation}, when available (builder default: built-in schemas)
 * @param strategicMergePatcher applies strategic merge patches, when available, else those patches are 415 (builder
 *     default: built-in schemas)
 * @param healthChecks checks of {@code /healthz}, {@code /livez} and {@code /readyz} beyond {@code ping} and {@code etcd}
 * @param maxRequestBodyBytes larger bodies are a 413
 * @param watchCacheCapacity recent events per resource a watch can resume from
 * @param watchBookmarkInterval how often a watch that allows bookmarks gets one
 * @param clock the time source of timestamps
 */
public record ApiServerConfig(
        String host,
        int port,
        KeyStore servingKeyStore,
        String servingKeyPassword,
        List<X509Certificate> clientCaCertificates,
        List<Authenticator> authenticators,
        boolean allowAnonymous,
        Optional<Impersonator> impersonator,
        List<Authorizer> authorizers,
        List<AdmissionPlugin> admissionPlugins,
        KeyValueStore storage,
        List<ResourceDefinition> resources,
        List<CreateOnlyResource> createOnlyResources,
        List<NonResourceHandler> nonResourceHandlers,
        List<PreAuthenticationHandler> preAuthenticationHandlers,
        VersionInfo version,
        Optional<OpenApiSource> openApi,
        Optional<UnknownFieldDetector> unknownFields,
        Optional<StrategicMergePatcher> strategicMergePatcher,
        List<HealthCheck> healthChecks,
        int maxRequestBodyBytes,
        int watchCacheCapacity,
        Duration watchBookmarkInterval,
        InstantSource clock) {
    public static final int DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

    public ApiServerConfig {
        requireNonNull(host, "host is null");
        requireNonNull(servingKeyStore, "servingKeyStore is null");
        requireNonNull(servingKeyPassword, "servingKeyPassword is null");
        clientCaCertificates = List.copyOf(requireNonNull(clientCaCertificates, "clientCaCertificates is null"));
        authenticators = List.copyOf(requireNonNull(authenticators, "authenticators is null"));
        requireNonNull(impersonator, "impersonator is null");
        authorizers = List.copyOf(requireNonNull(authorizers, "authorizers is null"));
        admissionPlugins = List.copyOf(requireNonNull(admissionPlugins, "admissionPlugins is null"));
        requireNonNull(storage, "storage is null");
        resources = List.copyOf(requireNonNull(resources, "resources is null"));
        createOnlyResources = List.copyOf(requireNonNull(createOnlyResources, "createOnlyResources is null"));
        nonResourceHandlers = List.copyOf(requireNonNull(nonResourceHandlers, "nonResourceHandlers is null"));
        preAuthenticationHandlers = List.copyOf(requireNonNull(preAuthenticationHandlers, "preAuthenticationHandlers is null"));
        requireNonNull(version, "version is null");
        requireNonNull(openApi, "openApi is null");
        requireNonNull(unknownFields, "unknownFields is null");
        requireNonNull(strategicMergePatcher, "strategicMergePatcher is null");
        healthChecks = List.copyOf(requireNonNull(healthChecks, "healthChecks is null"));
        requireNonNull(watchBookmarkInterval, "watchBookmarkInterval is null");
        requireNonNull(clock, "clock is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (maxRequestBodyBytes <= 0 || watchCacheCapacity <= 0) {
            throw new IllegalArgumentException("maxRequestBodyBytes and watchCacheCapacity must be positive");
        }
    }

    public static Builder builder(KeyValueStore storage, KeyStore servingKeyStore, String servingKeyPassword) {
        return new Builder(storage, servingKeyStore, servingKeyPassword);
    }

    /** Builds a config with upstream's defaults: port 6443 on all addresses, anonymous off, 3 MiB bodies. Not thread-safe. */
    public static final class Builder {
        private final KeyValueStore storage;
        private final KeyStore servingKeyStore;
        private final String servingKeyPassword;
        private String host = "0.0.0.0";
        private int port = 6443;
        private final List<X509Certificate> clientCaCertificates = new ArrayList<>();
        private final List<Authenticator> authenticators = new ArrayList<>();
        private boolean allowAnonymous;
        private Impersonator impersonator;
        private final List<Authorizer> authorizers = new ArrayList<>();
        private final List<AdmissionPlugin> admissionPlugins = new ArrayList<>();
        private final List<ResourceDefinition> resources = new ArrayList<>();
        private final List<CreateOnlyResource> createOnlyResources = new ArrayList<>();
        private final List<NonResourceHandler> nonResourceHandlers = new ArrayList<>();
        private final List<PreAuthenticationHandler> preAuthenticationHandlers = new ArrayList<>();
        private VersionInfo version = VersionInfo.k4j();
        private OpenApiSource openApi;
        private UnknownFieldDetector unknownFields;
        private StrategicMergePatcher strategicMergePatcher;
        private final List<HealthCheck> healthChecks = new ArrayList<>();
        private int maxRequestBodyBytes = DEFAULT_MAX_REQUEST_BODY_BYTES;
        private int watchCacheCapacity = 10_000;
        private Duration watchBookmarkInterval = Duration.ofMinutes(1);
        private InstantSource clock = InstantSource.system();

        private Builder(KeyValueStore storage, KeyStore servingKeyStore, String servingKeyPassword) {
            this.storage = storage;
            this.servingKeyStore = servingKeyStore;
            this.servingKeyPassword = servingKeyPassword;
        }

        public Builder listen(String newHost, int newPort) {
            this.host = newHost;
            this.port = newPort;
            return this;
        }

        public Builder clientCaCertificates(List<X509Certificate> certificates) {
            clientCaCertificates.addAll(certificates);
            return this;
        }

        public Builder authenticators(List<? extends Authenticator> values) {
            authenticators.addAll(values);
            return this;
        }

        public Builder allowAnonymous(boolean value) {
            this.allowAnonymous = value;
            return this;
        }

        public Builder impersonator(Impersonator value) {
            this.impersonator = value;
            return this;
        }

        public Builder authorizers(List<? extends Authorizer> values) {
            authorizers.addAll(values);
            return this;
        }

        public Builder admissionPlugins(List<? extends AdmissionPlugin> values) {
            admissionPlugins.addAll(values);
            return this;
        }

        public Builder resources(List<ResourceDefinition> values) {
            resources.addAll(values);
            return this;
        }

        public Builder createOnlyResources(List<? extends CreateOnlyResource> values) {
            createOnlyResources.addAll(values);
            return this;
        }

        public Builder nonResourceHandlers(List<? extends NonResourceHandler> values) {
            nonResourceHandlers.addAll(values);
            return this;
        }

        public Builder preAuthenticationHandlers(List<? extends PreAuthenticationHandler> values) {
            preAuthenticationHandlers.addAll(values);
            return this;
        }

        public Builder version(VersionInfo value) {
            this.version = value;
            return this;
        }

        public Builder openApi(OpenApiSource value) {
            this.openApi = value;
            return this;
        }

        public Builder unknownFields(UnknownFieldDetector value) {
            this.unknownFields = value;
            return this;
        }

        public Builder strategicMergePatcher(StrategicMergePatcher value) {
            this.strategicMergePatcher = value;
            return this;
        }

        public Builder healthChecks(List<HealthCheck> values) {
            healthChecks.addAll(values);
            return this;
        }

        public Builder maxRequestBodyBytes(int value) {
            this.maxRequestBodyBytes = value;
            return this;
        }

        public Builder watchCacheCapacity(int value) {
            this.watchCacheCapacity = value;
            return this;
        }

        public Builder watchBookmarkInterval(Duration value) {
            this.watchBookmarkInterval = value;
            return this;
        }

        public Builder clock(InstantSource value) {
            this.clock = value;
            return this;
        }

        /**
         * Builds the config. Without an explicit OpenAPI source, unknown-field detector or strategic merge patcher,
         * the built-in schemas' ones are used.
         */
        public ApiServerConfig build() {
            if (openApi == null) {
                openApi = new BuiltinOpenApi();
            }
            // The built-in schemas take a second or more of CPU to build (reflection over every model class). They are
            // only needed by writes with field validation and by strategic merge patches, so they are built on first
            // use; a server that wants them ready early warms them up itself once it has started (the launcher does).
            if (unknownFields == null) {
                unknownFields = (type, object) -> UnknownFields.builtin().find(type.gvk(), object);
            }
            if (strategicMergePatcher == null) {
                strategicMergePatcher = (type, original, patch) -> StrategicMergePatch.builtin().apply(type.gvk(), original, patch);
            }
            return new ApiServerConfig(host, port, servingKeyStore, servingKeyPassword, clientCaCertificates, authenticators, allowAnonymous,
                    Optional.ofNullable(impersonator), authorizers, admissionPlugins, storage, resources, createOnlyResources, nonResourceHandlers,
                    preAuthenticationHandlers, version, Optional.ofNullable(openApi), Optional.ofNullable(unknownFields), Optional.ofNullable(strategicMergePatcher),
                    healthChecks, maxRequestBodyBytes, watchCacheCapacity, watchBookmarkInterval, clock);
        }
    }
}
