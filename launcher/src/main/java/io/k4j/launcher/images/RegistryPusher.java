package io.k4j.launcher.images;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Pushes images from an {@link OciLayout} to a registry over the Docker Registry HTTP API v2 (the OCI distribution
 * spec): blobs the registry lacks by monolithic upload, then the manifest under each tag. What the registry already
 * has (same manifest digest under the tag, or the same blob) is not sent again, so a push of unchanged images costs
 * one HEAD request per tag.
 *
 * <p>Thread-safe.
 */
public final class RegistryPusher {
    /** Basic credentials for a registry with authentication. */
    public record Credentials(String username, String password) {
        public Credentials {
            requireNonNull(username, "username is null");
            requireNonNull(password, "password is null");
        }

        String header() {
            return "Basic " + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
        }
    }

    private final URI registry;
    private final Optional<Credentials> credentials;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1).build();

    /** {@code registry} is the registry's base URI, e.g. {@code http://127.0.0.1:5000}. */
    public RegistryPusher(URI registry, Optional<Credentials> credentials) {
        this.registry = requireNonNull(registry, "registry is null");
        this.credentials = requireNonNull(credentials, "credentials is null");
    }

    /**
     * Pushes the image to {@code repository} (e.g. {@code library/nginx}) under each of {@code tags}; returns the tags
     * that had to be written (empty when the registry was up to date).
     */
    public List<String> push(OciLayout layout, OciLayout.Descriptor manifest, String repository, List<String> tags) throws IOException {
        List<String> written = new ArrayList<>();
        boolean blobsPresent = false;
        for (String tag : tags) {
            if (manifestDigest(repository, tag).filter(manifest.digest()::equals).isPresent()) {
                continue;
            }
            if (!blobsPresent) {
                JsonNode json = layout.readJson(manifest.digest());
                pushBlob(layout, repository, json.path("config").path("digest").asText());
                for (JsonNode layer : json.path("layers")) {
                    pushBlob(layout, repository, layer.path("digest").asText());
                }
                blobsPresent = true;
            }
            HttpResponse<String> response = send(request(manifestUri(repository, tag))
                    .header("Content-Type", manifest.mediaType())
                    .PUT(HttpRequest.BodyPublishers.ofFile(layout.blob(manifest.digest()))));
            expect(response, 201, "PUT manifest " + repository + ":" + tag);
            written.add(tag);
        }
        return List.copyOf(written);
    }

    /** The digest the registry serves for {@code repository:tag}, if it has it. */
    public Optional<String> manifestDigest(String repository, String tag) throws IOException {
        HttpResponse<String> response = send(request(manifestUri(repository, tag))
                .header("Accept", OciLayout.MANIFEST_MEDIA_TYPE + ", application/vnd.docker.distribution.manifest.v2+json")
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        expect(response, 200, "HEAD manifest " + repository + ":" + tag);
        return response.headers().firstValue("Docker-Content-Digest");
    }

    private void pushBlob(OciLayout layout, String repository, String digest) throws IOException {
        HttpResponse<String> exists = send(request(registry.resolve("/v2/" + repository + "/blobs/" + digest))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
        if (exists.statusCode() == 200) {
            return;
        }
        HttpResponse<String> started = send(request(registry.resolve("/v2/" + repository + "/blobs/uploads/"))
                .POST(HttpRequest.BodyPublishers.noBody()));
        expect(started, 202, "start blob upload to " + repository);
        String location = started.headers().firstValue("Location")
                .orElseThrow(() -> new IOException("the registry started an upload without a Location"));
        URI upload = registry.resolve(location);
        String separator = upload.toString().contains("?") ? "&" : "?";
        URI complete = URI.create(upload + separator + "digest=" + URLEncoder.encode(digest, StandardCharsets.UTF_8));
        HttpResponse<String> finished = send(request(complete)
                .header("Content-Type", "application/octet-stream")
                .PUT(HttpRequest.BodyPublishers.ofFile(layout.blob(digest))));
        expect(finished, 201, "upload blob " + digest + " (" + Files.size(layout.blob(digest)) + " bytes) to " + repository);
    }

    private URI manifestUri(String repository, String tag) {
        return registry.resolve("/v2/" + repository + "/manifests/" + tag);
    }

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(2));
        credentials.ifPresent(value -> builder.header("Authorization", value.header()));
        return builder;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while talking to the registry " + registry, e);
        }
    }

    private static void expect(HttpResponse<String> response, int status, String what) throws IOException {
        if (response.statusCode() != status) {
            throw new IOException(what + ": the registry answered " + response.statusCode() + " " + response.body().strip());
        }
    }
}
