package io.k4j.launcher.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Builds the real images and checks them with skopeo and umoci, tools that know nothing of how they were written. */
class ImageCacheTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path scratch;

    @Test
    void busyboxHasEveryAppletUsersAndShAsItsCommand() throws Exception {
        BuiltImage busybox = TestImages.image("busybox");
        assertThat(busybox.tags()).contains("latest").anyMatch(tag -> tag.matches("\\d+\\.\\d+\\.\\d+"))
                .anyMatch(tag -> tag.matches("\\d+\\.\\d+"));

        JsonNode config = skopeoConfig("busybox:latest");
        assertThat(config.path("config").path("Cmd")).containsExactly(JSON.getNodeFactory().textNode("sh"));
        assertThat(config.path("os").asText()).isEqualTo("linux");
        assertThat(config.path("rootfs").path("diff_ids")).hasSize(1);

        Path rootfs = unpack("busybox:latest");
        for (String applet : List.of("bin/sh", "bin/sleep", "bin/hostname", "usr/bin/wget", "usr/bin/nslookup", "bin/tar", "bin/ls", "bin/cat")) {
            assertThat(rootfs.resolve(applet)).isSymbolicLink();
            assertThat(Files.readSymbolicLink(rootfs.resolve(applet))).hasToString("/bin/busybox");
        }
        assertThat(rootfs.resolve("bin/busybox")).isExecutable();
        assertThat(Files.readString(rootfs.resolve("etc/passwd"))).contains("root:x:0:0:").contains("nobody:x:65534:65534:");
        assertThat(Files.readString(rootfs.resolve("etc/group"))).contains("root:x:0:").contains("nobody:x:65534:");
    }

    @Test
    void pauseIsAStaticBinaryAsEntrypoint() throws Exception {
        assumeTrue(HostCommands.find("gcc").isPresent(), "no gcc: the pause image is the busybox fallback");
        JsonNode config = skopeoConfig("pause:3.10");
        assertThat(config.path("config").path("Entrypoint")).containsExactly(JSON.getNodeFactory().textNode("/pause"));

        Path rootfs = unpack("pause:3.10");
        assertThat(rootfs.resolve("pause")).isExecutable();
        assertThat(HostCommands.run("file", "-b", rootfs.resolve("pause").toString())).contains("statically linked");
        assertThat(HostCommands.run(rootfs.resolve("pause").toString(), "-v")).contains("3.10");
    }

    @Test
    void nginxRunsItsBinaryWithDebiansConfigurationOnPort80() throws Exception {
        BuiltImage nginx = TestImages.image("nginx");
        assertThat(nginx.tags()).contains("latest").anyMatch(tag -> tag.matches("\\d+\\.\\d+\\.\\d+"));

        JsonNode config = skopeoConfig("nginx:latest");
        assertThat(config.path("config").path("Cmd").toString()).isEqualTo("[\"nginx\",\"-g\",\"daemon off;\"]");
        assertThat(config.path("config").path("ExposedPorts").has("80/tcp")).isTrue();
        assertThat(config.path("config").path("StopSignal").asText()).isEqualTo("SIGQUIT");

        Path rootfs = unpack("nginx:latest");
        assertThat(Files.readString(rootfs.resolve("usr/share/nginx/html/index.html"))).contains("<title>Welcome to nginx!</title>");
        assertThat(Files.readString(rootfs.resolve("etc/passwd"))).contains("www-data:x:33:33:").contains("nobody:");
        assertThat(rootfs.resolve("etc/nginx/mime.types")).exists();
        assertThat(Files.readSymbolicLink(rootfs.resolve("var/log/nginx/access.log"))).hasToString("/dev/stdout");
        assumeTrue("root".equals(System.getProperty("user.name")), "chroot needs root");
        // A chroot has no /dev/stdout and /dev/stderr (a container has): log to files for the test.
        for (String log : List.of("access.log", "error.log")) {
            Files.delete(rootfs.resolve("var/log/nginx").resolve(log));
        }
        // nginx -t inside the image's root proves its shared libraries and its configuration are complete.
        HostCommands.run(List.of("chroot", rootfs.toString(), "/usr/sbin/nginx", "-t"), null);
    }

    @Test
    void aSecondBuildReusesTheImagesAndARebuildGivesTheSameDigests() throws Exception {
        ImageCache cache = TestImages.cache();
        List<BuiltImage> first = TestImages.images();

        List<BuiltImage> again = cache.build(Progress.silent());
        assertThat(again).allSatisfy(image -> assertThat(image.rebuilt()).isFalse());
        assertThat(again).extracting(image -> image.manifest().digest()).isEqualTo(first.stream().map(image -> image.manifest().digest()).toList());

        // Changed inputs (here: forged) rebuild the image; the layers are reproducible, so the digest is unchanged.
        Path inputs = cache.directory().resolve("inputs").resolve("busybox");
        List<String> lines = Files.readAllLines(inputs, StandardCharsets.UTF_8);
        Files.writeString(inputs, "changed\n" + lines.get(1) + "\n");
        List<BuiltImage> rebuilt = cache.build(Progress.silent());
        BuiltImage busybox = rebuilt.stream().filter(image -> image.name().equals("busybox")).findFirst().orElseThrow();
        assertThat(busybox.rebuilt()).isTrue();
        assertThat(busybox.manifest().digest()).isEqualTo(TestImages.image("busybox").manifest().digest());
        assertThat(rebuilt).filteredOn(image -> !image.name().equals("busybox")).allSatisfy(image -> assertThat(image.rebuilt()).isFalse());
    }

    private static JsonNode skopeoConfig(String reference) throws IOException {
        assumeTrue(HostCommands.find("skopeo").isPresent(), "skopeo is not installed");
        String layout = TestImages.cache().layoutDirectory().toString();
        return JSON.readTree(HostCommands.run("skopeo", "inspect", "--config", "oci:" + layout + ":" + reference));
    }

    private Path unpack(String reference) throws IOException {
        assumeTrue(HostCommands.find("umoci").isPresent(), "umoci is not installed");
        Path bundle = scratch.resolve(reference.replace(':', '-'));
        List<String> command = new java.util.ArrayList<>(List.of("umoci", "unpack"));
        if (!"root".equals(System.getProperty("user.name"))) {
            command.add("--rootless");
        }
        command.addAll(List.of("--image", TestImages.cache().layoutDirectory() + ":" + reference, bundle.toString()));
        HostCommands.run(command, null);
        return bundle.resolve("rootfs");
    }
}
