package io.k4j.launcher.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.k4j.launcher.packages.PackageInstaller;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one call a node makes before its kubelet starts, on a fresh data directory and the machine's image cache. */
class NodeRuntimeSetupTest {
    @TempDir
    Path dataDirectory;

    @Test
    void preparesTheRegistryWithTheImagesTheMirrorAndTheCniDirectories() throws Exception {
        assumeTrue(PackageInstaller.missing(PackageInstaller.NODE_PACKAGES).isEmpty(), "the node packages are not installed");
        TestImages.assumeHostCanBuild();
        List<String> progress = new ArrayList<>();
        LocalImages.Options options = new LocalImages.Options(dataDirectory, ImageCache.defaultDirectory(), "127.0.0.1", 0);

        try (NodeRuntimeSetup node = NodeRuntimeSetup.prepare(options, progress::add)) {
            assertThat(node.sandboxImage()).isEqualTo("docker.io/library/pause:3.10");
            assertThat(node.registryConfigPath()).isEqualTo(dataDirectory.resolve("registry").resolve("certs.d"));
            assertThat(Files.readString(node.registryConfigPath().resolve("docker.io").resolve("hosts.toml")))
                    .contains("[host.\"" + node.images().registryEndpoint() + "\"]");
            HttpClient http = HttpClient.newHttpClient();
            for (String reference : List.of("library/pause/manifests/3.10", "library/busybox/manifests/latest", "library/nginx/manifests/latest")) {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(node.images().registryEndpoint() + "/v2/" + reference))
                        .header("Accept", OciLayout.MANIFEST_MEDIA_TYPE).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.discarding());
                assertThat(response.statusCode()).as(reference).isEqualTo(200);
            }
            assertThat(node.cniPluginDirectory()).isEqualTo(Path.of("/usr/lib/cni"));

            Path conflist = node.writeCniConfig("10.42.0.0/24", "k4jtest0", false);
            assertThat(conflist.getParent()).isEqualTo(node.cniConfDirectory());
            assertThat(Files.readString(conflist)).contains("10.42.0.0/24").contains("\"k4jtest0\"").contains(dataDirectory.resolve("cni").resolve("networks").toString());
        }
        assertThat(progress).anyMatch(line -> line.startsWith("registry: docker-registry listens on"))
                .anyMatch(line -> line.startsWith("registry: pushed library/pause:3.10"));
    }
}
