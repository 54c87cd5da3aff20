package io.k4j.kubelet.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

class ManifestFileSourceTest {
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: %s
            spec:
              containers:
              - name: c
                image: %s
            """;

    @TempDir
    Path directory;
    private final List<List<Pod>> updates = new ArrayList<>();

    private ManifestFileSource source(Path path) {
        return new ManifestFileSource(path, "node-a", Duration.ofHours(1), InstantSource.fixed(Instant.EPOCH), updates::add);
    }

    private List<String> lastNames() {
        return updates.getLast().stream().map(pod -> pod.getMetadata().getName()).toList();
    }

    @Test
    void everyVisibleFileIsAPodAndEachChangeIsANewSet() throws Exception {
        Files.writeString(directory.resolve("a.yaml"), POD.formatted("a", "busybox"));
        Files.writeString(directory.resolve(".hidden.yaml"), POD.formatted("hidden", "busybox"));
        try (ManifestFileSource source = source(directory)) {
            source.start();
            assertThat(updates).hasSize(1);
            assertThat(lastNames()).containsExactly("a-node-a");
            String firstUid = updates.getLast().getFirst().getMetadata().getUid();

            source.check();
            assertThat(updates).as("nothing changed, nothing sent").hasSize(1);

            Files.writeString(directory.resolve("b.json"), "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"},"
                    + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}");
            source.check();
            assertThat(lastNames()).containsExactly("a-node-a", "b-node-a");

            Files.writeString(directory.resolve("a.yaml"), POD.formatted("a", "busybox:1.35"));
            source.check();
            assertThat(updates).hasSize(3);
            assertThat(updates.getLast().getFirst().getMetadata().getUid()).isNotEqualTo(firstUid);

            Files.delete(directory.resolve("a.yaml"));
            source.check();
            assertThat(lastNames()).containsExactly("b-node-a");
        }
    }

    @Test
    void anInvalidFileIsSkippedAndAMissingDirectoryIsNoPods() throws Exception {
        Path missing = directory.resolve("later");
        try (ManifestFileSource source = source(missing)) {
            source.start();
            assertThat(updates).hasSize(1);
            assertThat(updates.getLast()).isEmpty();

            Files.createDirectories(missing);
            Files.writeString(missing.resolve("broken.yaml"), "kind: Pod\nmetadata: [");
            Files.writeString(missing.resolve("good.yaml"), POD.formatted("good", "busybox"));
            source.check();
            assertThat(lastNames()).containsExactly("good-node-a");
        }
    }

    @Test
    void ofTwoPodsWithOneNameTheFirstFileWins() throws Exception {
        Files.writeString(directory.resolve("a.yaml"), POD.formatted("web", "busybox"));
        Files.writeString(directory.resolve("b.yaml"), POD.formatted("web", "nginx"));
        try (ManifestFileSource source = source(directory)) {
            source.start();
            assertThat(updates.getLast()).singleElement()
                    .satisfies(pod -> assertThat(pod.getSpec().getContainers().getFirst().getImage()).isEqualTo("busybox"));
        }
    }

    @Test
    void aSingleFileIsItsPod() throws Exception {
        Path file = directory.resolve("only.yaml");
        Files.writeString(file, POD.formatted("only", "busybox"));
        try (ManifestFileSource source = source(file)) {
            source.start();
            assertThat(lastNames()).containsExactly("only-node-a");
        }
    }
}
