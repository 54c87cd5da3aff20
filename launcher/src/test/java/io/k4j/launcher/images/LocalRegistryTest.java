package io.k4j.launcher.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real docker-registry on a free loopback port, filled by {@link RegistryPusher} and read over its HTTP API. */
class LocalRegistryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path directory;

    @BeforeEach
    void requireRegistry() {
        assumeTrue(HostCommands.find("docker-registry").isPresent(), "docker-registry is not installed");
    }

    @Test
    void servesThePushedImagesUnderLibraryAndSkipsWhatItAlreadyHas() throws Exception {
        List<BuiltImage> images = TestImages.images();
        try (LocalRegistry registry = LocalRegistry.start(directory, "127.0.0.1", 0, Optional.empty(), Progress.silent())) {
            LocalImages.push(TestImages.cache(), images, registry.endpoint(), Optional.empty(), Progress.silent());

            for (BuiltImage image : images) {
                for (String tag : image.tags()) {
                    HttpResponse<String> manifest = get(registry.endpoint().resolve("/v2/" + image.repository() + "/manifests/" + tag), Optional.empty());
                    assertThat(manifest.statusCode()).isEqualTo(200);
                    assertThat(manifest.headers().firstValue("Docker-Content-Digest")).contains(image.manifest().digest());
                    JsonNode json = JSON.readTree(manifest.body());
                    String layer = json.path("layers").get(0).path("digest").asText();
                    assertThat(head(registry.endpoint().resolve("/v2/" + image.repository() + "/blobs/" + layer))).isEqualTo(200);
                }
            }
            RegistryPusher pusher = new RegistryPusher(registry.endpoint(), Optional.empty());
            BuiltImage busybox = TestImages.image("busybox");
            assertThat(pusher.push(OciLayout.open(TestImages.cache().layoutDirectory()), busybox.manifest(), busybox.repository(), busybox.tags()))
                    .isEmpty();
            if (HostCommands.find("skopeo").isPresent()) {
                JsonNode inspected = JSON.readTree(HostCommands.run("skopeo", "inspect", "--tls-verify=false",
                        "docker://" + registry.hostAndPort() + "/library/nginx:latest"));
                assertThat(inspected.path("Digest").asText()).isEqualTo(TestImages.image("nginx").manifest().digest());
            }
        }
    }

    @Test
    void withAnHtpasswdFileOnlyKnownUsersPullAndPush() throws Exception {
        Path htpasswd = Htpasswd.write(directory.resolve("auth").resolve("htpasswd"), Map.of("puller", "s3cret"));
        try (LocalRegistry registry = LocalRegistry.start(directory.resolve("registry"), "127.0.0.1", 0, Optional.of(htpasswd), Progress.silent())) {
            URI base = registry.endpoint().resolve("/v2/");
            assertThat(get(base, Optional.empty()).statusCode()).isEqualTo(401);
            assertThat(get(base, Optional.of("puller:wrong")).statusCode()).isEqualTo(401);
            assertThat(get(base, Optional.of("puller:s3cret")).statusCode()).isEqualTo(200);

            BuiltImage busybox = TestImages.image("busybox");
            OciLayout layout = OciLayout.open(TestImages.cache().layoutDirectory());
            assertThatThrownBy(() -> new RegistryPusher(registry.endpoint(), Optional.empty()).push(layout, busybox.manifest(), "private/busybox", List.of("latest")))
                    .hasMessageContaining("401");
            new RegistryPusher(registry.endpoint(), Optional.of(new RegistryPusher.Credentials("puller", "s3cret")))
                    .push(layout, busybox.manifest(), "private/busybox", List.of("latest"));
            assertThat(get(registry.endpoint().resolve("/v2/private/busybox/manifests/latest"), Optional.of("puller:s3cret")).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aTakenPreferredPortFallsBackToAFreeOne() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                LocalRegistry registry = LocalRegistry.start(directory, "127.0.0.1", taken.getLocalPort(), Optional.empty(), Progress.silent())) {
            assertThat(registry.endpoint().getPort()).isNotEqualTo(taken.getLocalPort()).isPositive();
            assertThat(get(registry.endpoint().resolve("/v2/"), Optional.empty()).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aRegistryLeftRunningByAKilledProcessIsReplaced() throws Exception {
        LocalRegistry first = LocalRegistry.start(directory, "127.0.0.1", 0, Optional.empty(), Progress.silent());
        long leftoverPid = Long.parseLong(java.nio.file.Files.readString(directory.resolve("registry.pid")));
        try (LocalRegistry second = LocalRegistry.start(directory, "127.0.0.1", 0, Optional.empty(), Progress.silent())) {
            assertThat(ProcessHandle.of(leftoverPid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
            assertThat(first.isAlive()).isFalse();
            assertThat(second.isAlive()).isTrue();
        } finally {
            first.close();
        }
    }

    @Test
    void onlyLoopbackAddresses() {
        assertThatThrownBy(() -> LocalRegistry.start(directory, "8.8.8.8", 0, Optional.empty(), Progress.silent()))
                .hasMessageContaining("loopback");
    }

    private HttpResponse<String> get(URI uri, Optional<String> userAndPassword) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .header("Accept", OciLayout.MANIFEST_MEDIA_TYPE);
        userAndPassword.ifPresent(value -> request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(value.getBytes())));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private int head(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
