package io.k4j.launcher.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistryMirrorsTest {
    @TempDir
    Path directory;

    @Test
    void dockerHubResolvesThroughTheLocalRegistryFirst() throws Exception {
        Path configPath = RegistryMirrors.write(directory.resolve("certs.d"), URI.create("http://127.0.0.1:5000"));

        assertThat(configPath).isEqualTo(directory.resolve("certs.d"));
        String hosts = Files.readString(configPath.resolve("docker.io").resolve("hosts.toml"));
        assertThat(hosts).contains("server = \"https://registry-1.docker.io\"")
                .contains("[host.\"http://127.0.0.1:5000\"]")
                .contains("capabilities = [\"pull\", \"resolve\"]");
    }

    @Test
    void aPlainHttpRegistryGetsItsOwnHostDirectory() throws Exception {
        RegistryMirrors.writePlainHttpHost(directory, "127.0.0.1:5001", URI.create("http://127.0.0.1:5001/"));

        String hosts = Files.readString(directory.resolve("127.0.0.1:5001").resolve("hosts.toml"));
        assertThat(hosts).contains("server = \"http://127.0.0.1:5001\"").contains("[host.\"http://127.0.0.1:5001\"]");
    }
}
