package io.k4j.kubelet.podobjects;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Objects held in memory; tokens are numbered ({@code token-1}, {@code token-2} …). Thread-safe. */
public final class FakePodObjectSource implements PodObjectSource {
    private final Map<String, ConfigMap> configMaps = new HashMap<>();
    private final Map<String, Secret> secrets = new HashMap<>();
    private final List<Service> services = new ArrayList<>();
    private final List<TokenRequest> tokenRequests = new ArrayList<>();
    private final InstantSource clock;
    private IOException tokenFailure;

    public FakePodObjectSource(InstantSource clock) {
        this.clock = clock;
    }

    public synchronized FakePodObjectSource putConfigMap(String namespace, String name, Map<String, String> data) {
        configMaps.put(namespace + "/" + name, new ConfigMapBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withData(new LinkedHashMap<>(data)).build());
        return this;
    }

    public synchronized FakePodObjectSource putConfigMap(ConfigMap configMap) {
        configMaps.put(configMap.getMetadata().getNamespace() + "/" + configMap.getMetadata().getName(), configMap);
        return this;
    }

    public synchronized FakePodObjectSource putSecret(String namespace, String name, Map<String, String> plainData) {
        Map<String, String> encoded = new LinkedHashMap<>();
        plainData.forEach((key, value) -> encoded.put(key, Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))));
        secrets.put(namespace + "/" + name, new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withData(encoded).build());
        return this;
    }

    public synchronized FakePodObjectSource addService(Service service) {
        services.add(service);
        return this;
    }

    public synchronized void failTokenRequests(IOException failure) {
        tokenFailure = failure;
    }

    public synchronized List<TokenRequest> tokenRequests() {
        return List.copyOf(tokenRequests);
    }

    @Override
    public synchronized Optional<ConfigMap> configMap(String namespace, String name) {
        return Optional.ofNullable(configMaps.get(namespace + "/" + name));
    }

    @Override
    public synchronized Optional<Secret> secret(String namespace, String name) {
        return Optional.ofNullable(secrets.get(namespace + "/" + name));
    }

    @Override
    public synchronized List<Service> services(String namespace) {
        return services.stream().filter(service -> namespace.equals(service.getMetadata().getNamespace())).toList();
    }

    @Override
    public synchronized TokenRequest requestToken(String namespace, String serviceAccountName, TokenRequest request) throws IOException {
        if (tokenFailure != null) {
            throw tokenFailure;
        }
        tokenRequests.add(request);
        Instant now = clock.instant();
        TokenRequest answered = new TokenRequest();
        answered.setSpec(request.getSpec());
        TokenRequestStatus status = new TokenRequestStatus();
        status.setToken("token-" + tokenRequests.size() + "-" + serviceAccountName);
        status.setExpirationTimestamp(now.plusSeconds(request.getSpec().getExpirationSeconds()).toString());
        answered.setStatus(status);
        return answered;
    }
}
