package io.k4j.kubelet.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.k4j.kubelet.cri.v1.AuthConfig;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

class RegistryCredentialsTest {
    @Test
    void matchesDockerConfigJsonEntriesToTheImagesRegistry() {
        Secret secret = dockerConfigJson("""
                {"auths": {
                  "127.0.0.1:5443": {"auth": "%s"},
                  "https://index.docker.io/v1/": {"username": "hub", "password": "secret"}
                }}""".formatted(base64("alice:wonderland")));

        List<AuthConfig> local = RegistryCredentials.forImage("127.0.0.1:5443/private/app:v1", List.of(secret));
        assertThat(local).singleElement().satisfies(auth -> {
            assertThat(auth.getUsername()).isEqualTo("alice");
            assertThat(auth.getPassword()).isEqualTo("wonderland");
            assertThat(auth.getServerAddress()).isEqualTo("127.0.0.1:5443");
        });
        assertThat(RegistryCredentials.forImage("busybox", List.of(secret))).singleElement()
                .satisfies(auth -> assertThat(auth.getUsername()).isEqualTo("hub"));
        assertThat(RegistryCredentials.forImage("quay.io/app", List.of(secret))).isEmpty();
    }

    @Test
    void findsTheRegistryOfAReference() {
        assertThat(RegistryCredentials.registryOf("nginx")).isEqualTo("docker.io");
        assertThat(RegistryCredentials.registryOf("library/nginx:1")).isEqualTo("docker.io");
        assertThat(RegistryCredentials.registryOf("localhost/app")).isEqualTo("localhost");
        assertThat(RegistryCredentials.registryOf("registry.example.com:5000/app")).isEqualTo("registry.example.com:5000");
    }

    private static Secret dockerConfigJson(String json) {
        return new SecretBuilder().withNewMetadata().withName("pull").endMetadata()
                .withType("kubernetes.io/dockerconfigjson")
                .addToData(".dockerconfigjson", base64(json))
                .build();
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
