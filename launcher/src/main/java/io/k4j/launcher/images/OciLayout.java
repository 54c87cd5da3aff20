package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * An OCI image layout directory (image-spec "image-layout"): {@code oci-layout}, {@code index.json} and
 * content-addressed {@code blobs/sha256/…}. Several images share one layout; each manifest in the index carries its
 * reference ({@code busybox:latest}) in the {@code org.opencontainers.image.ref.name} annotation, as skopeo's and
 * umoci's {@code oci:} transport expects.
 *
 * <p>Not thread-safe; {@link ImageCache} serializes writers with a file lock.
 */
public final class OciLayout {
    public static final String MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json";
    public static final String CONFIG_MEDIA_TYPE = "application/vnd.oci.image.config.v1+json";
    public static final String LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip";
    static final String REF_NAME = "org.opencontainers.image.ref.name";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A content descriptor: what a manifest or index says about a blob. */
    public record Descriptor(String mediaType, String digest, long size) {
        public Descriptor {
            requireNonNull(mediaType, "mediaType is null");
            requireNonNull(digest, "digest is null");
        }

        ObjectNode toJson() {
            ObjectNode node = JSON.createObjectNode();
            node.put("mediaType", mediaType);
            node.put("digest", digest);
            node.put("size", size);
            return node;
        }
    }

    /** A written layer: its compressed blob and the digest of the uncompressed tar (the config's diff_id). */
    public record Layer(Descriptor blob, String diffId) {
        public Layer {
            requireNonNull(blob, "blob is null");
            requireNonNull(diffId, "diffId is null");
        }
    }

    private final Path root;

    private OciLayout(Path root) {
        this.root = root;
    }

    /** Opens the layout at {@code root}, creating an empty one if there is none. */
    public static OciLayout open(Path root) throws IOException {
        Files.createDirectories(root.resolve("blobs").resolve("sha256"));
        Path marker = root.resolve("oci-layout");
        if (!Files.exists(marker)) {
            writeAtomically(marker, "{\"imageLayoutVersion\":\"1.0.0\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        Path index = root.resolve("index.json");
        if (!Files.exists(index)) {
            writeAtomically(index, "{\"schemaVersion\":2,\"manifests\":[]}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return new OciLayout(root.toAbsolutePath());
    }

    public Path root() {
        return root;
    }

    public Path blob(String digest) {
        if (!digest.startsWith("sha256:")) {
            throw new IllegalArgumentException("unsupported digest " + digest);
        }
        return root.resolve("blobs").resolve("sha256").resolve(digest.substring("sha256:".length()));
    }

    public boolean hasBlob(String digest) {
        return Files.isRegularFile(blob(digest));
    }

    public Descriptor writeBlob(String mediaType, byte[] content) throws IOException {
        String digest = "sha256:" + HexFormat.of().formatHex(sha256().digest(content));
        Path target = blob(digest);
        if (!Files.exists(target)) {
            writeAtomically(target, content);
        }
        return new Descriptor(mediaType, digest, content.length);
    }

    public Descriptor writeJson(String mediaType, JsonNode json) throws IOException {
        return writeBlob(mediaType, JSON.writeValueAsBytes(json));
    }

    /** Writes the file system as a gzip-compressed tar layer. */
    public Layer writeLayer(ImageFilesystem filesystem) throws IOException {
        Path temporary = Files.createTempFile(root.resolve("blobs"), "layer", ".partial");
        try {
            MessageDigest compressedDigest = sha256();
            MessageDigest uncompressedDigest = sha256();
            try (OutputStream file = Files.newOutputStream(temporary);
                    DigestOutputStream compressed = new DigestOutputStream(new java.io.BufferedOutputStream(file, 1 << 16), compressedDigest);
                    GZIPOutputStream gzip = new GZIPOutputStream(compressed, 1 << 16);
                    DigestOutputStream uncompressed = new DigestOutputStream(new java.io.BufferedOutputStream(gzip, 1 << 16), uncompressedDigest)) {
                TarArchive.write(filesystem, uncompressed);
            }
            String digest = "sha256:" + HexFormat.of().formatHex(compressedDigest.digest());
            long size = Files.size(temporary);
            moveAtomically(temporary, blob(digest));
            return new Layer(new Descriptor(LAYER_MEDIA_TYPE, digest, size), "sha256:" + HexFormat.of().formatHex(uncompressedDigest.digest()));
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** The manifest tagged {@code reference} (e.g. {@code busybox:latest}), if any. */
    public Optional<Descriptor> resolve(String reference) throws IOException {
        for (JsonNode manifest : index().withArray("manifests")) {
            if (reference.equals(manifest.path("annotations").path(REF_NAME).asText(null))) {
                return Optional.of(new Descriptor(manifest.path("mediaType").asText(), manifest.path("digest").asText(), manifest.path("size").asLong()));
            }
        }
        return Optional.empty();
    }

    /** Points {@code reference} at {@code manifest}, replacing what it pointed at before. */
    public void tag(String reference, Descriptor manifest) throws IOException {
        ObjectNode index = index();
        ArrayNode manifests = JSON.createArrayNode();
        for (JsonNode existing : index.withArray("manifests")) {
            if (!reference.equals(existing.path("annotations").path(REF_NAME).asText(null))) {
                manifests.add(existing);
            }
        }
        ObjectNode entry = manifest.toJson();
        entry.putObject("annotations").put(REF_NAME, reference);
        manifests.add(entry);
        index.set("manifests", manifests);
        writeAtomically(root.resolve("index.json"), JSON.writeValueAsBytes(index));
    }

    public JsonNode readJson(String digest) throws IOException {
        return JSON.readTree(Files.readAllBytes(blob(digest)));
    }

    /** Deletes blobs that no tagged manifest refers to (left over from earlier builds). */
    public void removeUnreferencedBlobs() throws IOException {
        Set<String> referenced = new HashSet<>();
        for (JsonNode entry : index().withArray("manifests")) {
            String manifestDigest = entry.path("digest").asText();
            referenced.add(manifestDigest);
            if (!hasBlob(manifestDigest)) {
                continue;
            }
            JsonNode manifest = readJson(manifestDigest);
            referenced.add(manifest.path("config").path("digest").asText());
            manifest.path("layers").forEach(layer -> referenced.add(layer.path("digest").asText()));
        }
        List<Path> unreferenced = new ArrayList<>();
        try (Stream<Path> blobs = Files.list(root.resolve("blobs").resolve("sha256"))) {
            blobs.filter(blob -> !referenced.contains("sha256:" + blob.getFileName())).forEach(unreferenced::add);
        }
        for (Path blob : unreferenced) {
            Files.deleteIfExists(blob);
        }
    }

    private ObjectNode index() throws IOException {
        return (ObjectNode) JSON.readTree(Files.readAllBytes(root.resolve("index.json")));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    static void writeAtomically(Path target, byte[] content) throws IOException {
        Path temporary = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".partial");
        try {
            Files.write(temporary, content);
            moveAtomically(temporary, target);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private static void moveAtomically(Path source, Path target) throws IOException {
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
