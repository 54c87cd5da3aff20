package io.k4j.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.registry.generic.CreateOnlyResource;
import io.k4j.apiserver.registry.generic.GenericStrategy;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.testing.TestAuthorizers;
import io.k4j.apiserver.testing.TestCertificates;
import io.k4j.apiserver.testing.TestResources;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts the apiserver on 127.0.0.1 over HTTPS and drives it with java.net.http like a client would. */
class ApiServerTest {
    private static final String KUBECTL_TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    private static final String AGGREGATED_ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

    @TempDir
    static Path directory;

    private static SqliteKeyValueStore storage;
    private static ApiServer server;
    private static HttpClient admin;
    private static HttpClient anonymous;
    private static String base;

    /** Client certificates: CN is the user, O the groups. */
    private static final Authenticator CLIENT_CERTIFICATES = request -> {
        if (request.clientCertificates().isEmpty()) {
            return Optional.empty();
        }
        try {
            String name = "";
            List<String> groups = new ArrayList<>();
            for (Rdn rdn : new LdapName(request.clientCertificates().get(0).getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equals("CN")) {
                    name = rdn.getValue().toString();
                } else if (rdn.getType().equals("O")) {
                    groups.add(rdn.getValue().toString());
                }
            }
            groups.add(UserInfo.AUTHENTICATED_GROUP);
            return Optional.of(UserInfo.of(name, groups));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    };

    private static final Authenticator TOKENS = request -> {
        String header = request.header("authorization");
        if (header == null || !header.startsWith("Bearer ")) {
            return Optional.empty();
        }
        if (header.equals("Bearer bob-token")) {
            return Optional.of(UserInfo.of("bob", List.of(UserInfo.AUTHENTICATED_GROUP)));
        }
        throw io.k4j.api.errors.StatusException.unauthorized();
    };

    /** A binding-like subresource: POST sets spec.nodeName through the parent's store. */
    private static final class Binding implements SubresourceHandler {
        @Override
        public String subresource() {
            return "binding";
        }

        @Override
        public String apiVersion() {
            return "v1";
        }

        @Override
        public String kind() {
            return "Binding";
        }

        @Override
        public ObjectNode create(Request request, ObjectNode body) {
            String node = body.path("target").path("name").asText();
            request.parent().guaranteedUpdate(request.namespace(), request.name(), "", pod -> {
                ((ObjectNode) pod.get("spec")).put("nodeName", node);
                return pod;
            });
            ObjectNode status = Json.object().put("kind", "Status").put("apiVersion", "v1").put("status", "Success").put("code", 201);
            status.putObject("metadata");
            return status;
        }
    }

    private static ResourceDefinition withBinding(ResourceDefinition definition) {
        return new ResourceDefinition(definition.strategy(), definition.subresourceStrategies(), List.of(new Binding()), definition.conversion());
    }

    /** A review-like create-only resource answering who the requester is. */
    private static final class WhoAmI implements CreateOnlyResource {
        private static final ResourceType TYPE = new ResourceType(new GroupVersionKind("authentication.k8s.io", "v1", "SelfSubjectReview"),
                "selfsubjectreviews", "selfsubjectreview", List.of(), List.of(), false, Set.of("create"), Set.of(), Object.class);

        @Override
        public ResourceType type() {
            return TYPE;
        }

        @Override
        public ObjectNode create(ObjectNode body, UserInfo user, String namespace) {
            body.putObject("status").putObject("userInfo").put("username", user.name());
            return body;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        TestCertificates certificates = new TestCertificates();
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        InstantSource clock = InstantSource.system();
        ApiServerConfig config = ApiServerConfig.builder(storage, certificates.servingKeyStore(), TestCertificates.PASSWORD)
                .listen("127.0.0.1", 0)
                .clientCaCertificates(List.of(certificates.caCertificate()))
                .authenticators(List.of(CLIENT_CERTIFICATES, TOKENS))
                .authorizers(List.of(TestAuthorizers.MASTERS_OR_READ_CONFIG_MAPS))
                .resources(List.of(
                        withBinding(new GenericStrategy(TestResources.PODS, clock).definition()),
                        new GenericStrategy(TestResources.CONFIG_MAPS, clock).definition(),
                        new GenericStrategy(TestResources.NAMESPACES, clock).definition(),
                        new GenericStrategy(TestResources.DEPLOYMENTS, clock).definition()))
                .createOnlyResources(List.of(new WhoAmI()))
                .watchCacheCapacity(50)
                .watchBookmarkInterval(Duration.ofMillis(300))
                .build();
        server = new ApiServer(config);
        server.start();
        base = "https://127.0.0.1:" + server.port();
        admin = HttpClient.newBuilder().sslContext(certificates.clientContext("admin", List.of(UserInfo.MASTERS_GROUP))).build();
        anonymous = HttpClient.newBuilder().sslContext(certificates.clientContext(null, List.of())).version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        storage.close();
    }

    private static HttpResponse<String> send(HttpClient client, String method, String path, String contentType, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return Json.mapper().readTree(response.body());
    }

    private static String configMap(String name, String value) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"labels\":{\"app\":\"web\"}},\"data\":{\"key\":\"" + value + "\"}}";
    }

    @Test
    void subresourceHandlersAndCreateOnlyResources() throws Exception {
        String pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"bound\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
        send(admin, "POST", "/api/v1/namespaces/binding/pods", "application/json", pod);

        HttpResponse<String> binding = send(admin, "POST", "/api/v1/namespaces/binding/pods/bound/binding", "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"bound\"},\"target\":{\"kind\":\"Node\",\"name\":\"node-1\"}}");
        HttpResponse<String> getBinding = send(admin, "GET", "/api/v1/namespaces/binding/pods/bound/binding", null, null);
        HttpResponse<String> review = send(admin, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
                "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"SelfSubjectReview\"}");
        HttpResponse<String> listReviews = send(admin, "GET", "/apis/authentication.k8s.io/v1/selfsubjectreviews", null, null);
        JsonNode core = json(send(admin, "GET", "/api/v1", null, null));

        assertThat(binding.statusCode()).isEqualTo(201);
        assertThat(json(send(admin, "GET", "/api/v1/namespaces/binding/pods/bound", null, null)).path("spec").path("nodeName").asText()).isEqualTo("node-1");
        assertThat(getBinding.statusCode()).isEqualTo(405);
        assertThat(review.statusCode()).isEqualTo(201);
        assertThat(json(review).path("status").path("userInfo").path("username").asText()).isEqualTo("admin");
        assertThat(listReviews.statusCode()).isEqualTo(405);
        JsonNode bindingResource = null;
        for (JsonNode resource : core.path("resources")) {
            if (resource.path("name").asText().equals("pods/binding")) {
                bindingResource = resource;
            }
        }
        assertThat(bindingResource).isNotNull();
        assertThat(bindingResource.path("kind").asText()).isEqualTo("Binding");
        assertThat(bindingResource.path("verbs").get(0).asText()).isEqualTo("create");
    }

    @Test
    void servesOverHttp2AndHttp11() throws Exception {
        HttpResponse<String> http2 = send(admin, "GET", "/version", null, null);
        HttpResponse<String> http11 = send(anonymous, "GET", "/version", null, null, "Authorization", "Bearer bob-token");

        assertThat(http2.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(json(http2).path("gitVersion").asText()).startsWith("v1.32");
        assertThat(http11.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void createGetListUpdatePatchDeleteConfigMaps() throws Exception {
        HttpResponse<String> created = send(admin, "POST", "/api/v1/namespaces/default/configmaps", "application/json", configMap("crud", "one"));
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode object = json(created);
        String resourceVersion = object.path("metadata").path("resourceVersion").asText();
        assertThat(object.path("metadata").path("uid").asText()).isNotEmpty();

        HttpResponse<String> got = send(admin, "GET", "/api/v1/namespaces/default/configmaps/crud", null, null);
        assertThat(json(got).path("data").path("key").asText()).isEqualTo("one");

        HttpResponse<String> list = send(admin, "GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb", null, null);
        JsonNode listBody = json(list);
        assertThat(listBody.path("kind").asText()).isEqualTo("ConfigMapList");
        assertThat(listBody.path("metadata").path("resourceVersion").asLong()).isGreaterThanOrEqualTo(Long.parseLong(resourceVersion));
        assertThat(listBody.path("items").findValuesAsText("name")).contains("crud");

        ObjectNode update = (ObjectNode) json(got);
        ((ObjectNode) update.get("data")).put("key", "two");
        HttpResponse<String> updated = send(admin, "PUT", "/api/v1/namespaces/default/configmaps/crud", "application/json", update.toString());
        assertThat(updated.statusCode()).isEqualTo(200);
        HttpResponse<String> stale = send(admin, "PUT", "/api/v1/namespaces/default/configmaps/crud", "application/json", update.toString());
        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(json(stale).path("message").asText()).isEqualTo("Operation cannot be fulfilled on configmaps \"crud\": the object has been modified; please apply your changes to the latest version and try again");
        assertThat(json(stale).path("reason").asText()).isEqualTo("Conflict");

        HttpResponse<String> merged = send(admin, "PATCH", "/api/v1/namespaces/default/configmaps/crud", "application/merge-patch+json", "{\"data\":{\"other\":\"x\"}}");
        assertThat(json(merged).path("data").path("other").asText()).isEqualTo("x");
        HttpResponse<String> patched = send(admin, "PATCH", "/api/v1/namespaces/default/configmaps/crud", "application/json-patch+json",
                "[{\"op\":\"replace\",\"path\":\"/data/key\",\"value\":\"three\"}]");
        assertThat(json(patched).path("data").path("key").asText()).isEqualTo("three");
        HttpResponse<String> strategic = send(admin, "PATCH", "/api/v1/namespaces/default/configmaps/crud", "application/strategic-merge-patch+json", "{\"data\":{\"other\":null}}");
        assertThat(strategic.statusCode()).isEqualTo(200);
        assertThat(json(strategic).path("data").has("other")).isFalse();
        HttpResponse<String> apply = send(admin, "PATCH", "/api/v1/namespaces/default/configmaps/crud", "application/apply-patch+yaml", "data: {}");
        assertThat(apply.statusCode()).isEqualTo(422);

        HttpResponse<String> deleted = send(admin, "DELETE", "/api/v1/namespaces/default/configmaps/crud", null, null);
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(json(deleted).path("status").asText()).isEqualTo("Success");
        assertThat(json(deleted).path("details").path("kind").asText()).isEqualTo("configmaps");
        HttpResponse<String> gone = send(admin, "GET", "/api/v1/namespaces/default/configmaps/crud", null, null);
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(json(gone).path("message").asText()).isEqualTo("configmaps \"crud\" not found");
    }

    @Test
    void aLargeListIsStreamedWholeWithItsLengthOverHttp2AndHttp11() throws Exception {
        String value = "v".repeat(10_000);
        for (int i = 0; i < 40; i++) {
            assertThat(send(admin, "POST", "/api/v1/namespaces/large/configmaps", "application/json", configMap(String.format("cm-%02d", i), value))
                    .statusCode()).isEqualTo(201);
        }

        HttpResponse<String> http2 = send(admin, "GET", "/api/v1/namespaces/large/configmaps", null, null);
        HttpResponse<String> http11 = send(anonymous, "GET", "/api/v1/namespaces/large/configmaps", null, null, "Authorization", "Bearer bob-token");

        for (HttpResponse<String> list : List.of(http2, http11)) {
            assertThat(list.statusCode()).isEqualTo(200);
            int length = list.body().getBytes(StandardCharsets.UTF_8).length;
            // Past the size from which the server streams a body instead of collecting it into one array.
            assertThat(length).isGreaterThan(256 * 1024);
            assertThat(list.headers().firstValueAsLong("content-length")).hasValue(length);
            JsonNode items = json(list).path("items");
            assertThat(items).hasSize(40);
            assertThat(items.path(39).path("metadata").path("name").asText()).isEqualTo("cm-39");
            assertThat(items.path(39).path("data").path("key").asText()).isEqualTo(value);
        }
        assertThat(http11.body()).isEqualTo(http2.body());
    }

    @Test
    void tablesAndYamlAndPartialMetadata() throws Exception {
        send(admin, "POST", "/api/v1/namespaces/default/configmaps", "application/json", configMap("table", "v"));

        HttpResponse<String> table = send(admin, "GET", "/api/v1/namespaces/default/configmaps?limit=500", null, null, "Accept", KUBECTL_TABLE_ACCEPT);
        JsonNode body = json(table);
        assertThat(table.headers().firstValue("content-type")).hasValue("application/json;as=Table;v=v1;g=meta.k8s.io");
        assertThat(body.path("kind").asText()).isEqualTo("Table");
        assertThat(body.path("columnDefinitions").get(0).path("name").asText()).isEqualTo("Name");
        assertThat(body.path("rows").findValuesAsText("name")).contains("table");
        assertThat(body.path("rows").get(0).path("object").path("kind").asText()).isEqualTo("PartialObjectMetadata");

        HttpResponse<String> yaml = send(admin, "GET", "/api/v1/namespaces/default/configmaps/table", null, null, "Accept", "application/yaml");
        assertThat(yaml.headers().firstValue("content-type")).hasValue("application/yaml");
        assertThat(yaml.body()).contains("kind: ConfigMap").contains("name: table");
        HttpResponse<String> yamlList = send(admin, "GET", "/api/v1/namespaces/default/configmaps", null, null, "Accept", "application/yaml");
        assertThat(yamlList.statusCode()).isEqualTo(200);
        assertThat(yamlList.headers().firstValue("content-type")).hasValue("application/yaml");
        assertThat(yamlList.body()).startsWith("apiVersion: v1\nitems:\n- apiVersion: v1\n").contains("  name: table\n")
                .containsPattern("\nkind: ConfigMapList\nmetadata:\n  resourceVersion: \"[0-9]+\"\n$");

        HttpResponse<String> partial = send(admin, "GET", "/api/v1/namespaces/default/configmaps", null, null,
                "Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
        assertThat(json(partial).path("kind").asText()).isEqualTo("PartialObjectMetadataList");

        HttpResponse<String> protobufOnly = send(admin, "GET", "/api/v1/namespaces/default/configmaps", null, null, "Accept", "application/vnd.kubernetes.protobuf");
        assertThat(protobufOnly.statusCode()).isEqualTo(406);
    }

    @Test
    void deleteCollectionAnswersWhatItListedInTheRepresentationAskedFor() throws Exception {
        for (String name : List.of("gone-0", "gone-1", "gone-2")) {
            send(admin, "POST", "/api/v1/namespaces/sweep/configmaps", "application/json", configMap(name, "v"));
        }
        send(admin, "POST", "/api/v1/namespaces/sweep/configmaps", "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"kept\"},\"data\":{\"key\":\"v\"}}");
        JsonNode before = json(send(admin, "GET", "/api/v1/namespaces/sweep/configmaps/gone-1", null, null));

        // As upstream's metadata client (the namespace controller's) asks.
        HttpResponse<String> partial = send(admin, "DELETE", "/api/v1/namespaces/sweep/configmaps?labelSelector=app%3Dweb&limit=2", null, null,
                "Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json");
        assertThat(partial.statusCode()).isEqualTo(200);
        assertThat(partial.headers().firstValue("content-type")).hasValue("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io");
        JsonNode metadataList = json(partial);
        assertThat(metadataList.path("kind").asText()).isEqualTo("PartialObjectMetadataList");
        assertThat(metadataList.path("metadata").path("continue").asText()).isNotEmpty();
        assertThat(metadataList.path("items").findValuesAsText("name")).containsExactly("gone-0", "gone-1");
        JsonNode listed = metadataList.path("items").get(1);
        assertThat(listed.path("kind").asText()).isEqualTo("PartialObjectMetadata");
        assertThat(listed.has("data")).isFalse();
        // The object as listed, before its deletion.
        assertThat(listed.path("metadata").path("resourceVersion").asText()).isEqualTo(before.path("metadata").path("resourceVersion").asText());

        HttpResponse<String> full = send(admin, "DELETE", "/api/v1/namespaces/sweep/configmaps?labelSelector=app%3Dweb", null, null);
        JsonNode list = json(full);
        assertThat(full.statusCode()).isEqualTo(200);
        assertThat(list.path("kind").asText()).isEqualTo("ConfigMapList");
        assertThat(list.path("items")).extracting(item -> item.path("metadata").path("name").asText()).containsExactly("gone-2");
        assertThat(list.path("items").get(0).path("data").path("key").asText()).isEqualTo("v");

        assertThat(json(send(admin, "GET", "/api/v1/namespaces/sweep/configmaps", null, null)).path("items").findValuesAsText("name"))
                .containsExactly("kept");
    }

    @Test
    void watchStreamsEventsFromListResourceVersion() throws Exception {
        HttpResponse<String> list = send(admin, "GET", "/api/v1/namespaces/watched/configmaps", null, null);
        String resourceVersion = json(list).path("metadata").path("resourceVersion").asText();

        HttpRequest watchRequest = HttpRequest.newBuilder(URI.create(base + "/api/v1/namespaces/watched/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=30&resourceVersion=" + resourceVersion)).build();
        HttpResponse<java.io.InputStream> watch = admin.send(watchRequest, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(watch.statusCode()).isEqualTo(200);
        List<JsonNode> events = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(watch.body(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    events.add(Json.mapper().readTree(line));
                }
            } catch (Exception e) {
                // stream closed
            }
        });

        send(admin, "POST", "/api/v1/namespaces/watched/configmaps", "application/json", configMap("w", "1"));
        send(admin, "PATCH", "/api/v1/namespaces/watched/configmaps/w", "application/merge-patch+json", "{\"data\":{\"key\":\"2\"}}");
        send(admin, "DELETE", "/api/v1/namespaces/watched/configmaps/w", null, null);

        await().atMost(Duration.ofSeconds(10)).until(() -> changes(events).size() >= 3);
        List<JsonNode> changes = changes(events);
        assertThat(changes).extracting(event -> event.path("type").asText()).containsExactly("ADDED", "MODIFIED", "DELETED");
        assertThat(changes.get(1).path("object").path("data").path("key").asText()).isEqualTo("2");
        watch.body().close();
        reader.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWatchTheClientResetsEndsOnTheServerWithoutWaitingForAnEvent() throws Exception {
        send(admin, "POST", "/apis/apps/v1/namespaces/reset/deployments", "application/json",
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"d\"}}}}");
        HttpRequest watchRequest = HttpRequest.newBuilder(URI.create(base + "/apis/apps/v1/namespaces/reset/deployments?watch=true&resourceVersion=0")).build();
        HttpResponse<java.io.InputStream> watch = admin.send(watchRequest, HttpResponse.BodyHandlers.ofInputStream());
        BufferedReader lines = new BufferedReader(new InputStreamReader(watch.body(), StandardCharsets.UTF_8));
        assertThat(Json.mapper().readTree(lines.readLine()).path("type").asText()).isEqualTo("ADDED");
        assertThat(watchingDeployments()).isEqualTo(1);

        // Closing the body resets the HTTP/2 stream; no change follows that a write could fail on.
        watch.body().close();

        await().atMost(Duration.ofSeconds(10)).until(() -> watchingDeployments() == 0);
    }

    /** The deployments watches the server is serving, from its longrunning gauge. */
    private static int watchingDeployments() throws Exception {
        return send(admin, "GET", "/metrics", null, null).body().lines()
                .filter(line -> line.startsWith("apiserver_longrunning_requests{") && line.contains("resource=\"deployments\"") && line.contains("verb=\"WATCH\""))
                .mapToInt(line -> (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static List<JsonNode> changes(List<JsonNode> events) {
        synchronized (events) {
            return events.stream().filter(event -> !event.path("type").asText().equals("BOOKMARK")).toList();
        }
    }

    @Test
    void watchSendsInitialEventsAndPeriodicBookmarks() throws Exception {
        send(admin, "POST", "/api/v1/namespaces/initial/configmaps", "application/json", configMap("first", "1"));

        HttpResponse<String> watch = send(admin, "GET", "/api/v1/namespaces/initial/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
                + "&resourceVersionMatch=NotOlderThan&timeoutSeconds=2", null, null);

        List<JsonNode> events = new ArrayList<>();
        for (String line : watch.body().split("\n")) {
            events.add(Json.mapper().readTree(line));
        }
        assertThat(events.get(0).path("type").asText()).isEqualTo("ADDED");
        assertThat(events.get(0).path("object").path("metadata").path("name").asText()).isEqualTo("first");
        assertThat(events.get(1).path("type").asText()).isEqualTo("BOOKMARK");
        assertThat(events.get(1).path("object").path("metadata").path("annotations").path("k8s.io/initial-events-end").asText()).isEqualTo("true");
        assertThat(events.subList(2, events.size())).as("periodic bookmarks until the timeout")
                .isNotEmpty()
                .allSatisfy(event -> assertThat(event.path("type").asText()).isEqualTo("BOOKMARK"));

        HttpResponse<String> invalid = send(admin, "GET", "/api/v1/namespaces/initial/configmaps?watch=1&sendInitialEvents=true", null, null);
        assertThat(invalid.statusCode()).isEqualTo(422);
    }

    @Test
    void watchFromCompactedWindowGetsExpiredErrorEvent() throws Exception {
        for (int i = 0; i < 60; i++) {
            send(admin, "POST", "/api/v1/namespaces/churn/configmaps", "application/json", configMap("c" + i, "v"));
        }
        HttpResponse<String> watch = send(admin, "GET", "/api/v1/namespaces/churn/configmaps?watch=1&resourceVersion=1", null, null);

        assertThat(watch.statusCode()).isEqualTo(200);
        JsonNode event = Json.mapper().readTree(watch.body().lines().findFirst().orElseThrow());
        assertThat(event.path("type").asText()).isEqualTo("ERROR");
        assertThat(event.path("object").path("code").asInt()).isEqualTo(410);
        assertThat(event.path("object").path("reason").asText()).isEqualTo("Expired");
        assertThat(event.path("object").path("message").asText()).startsWith("too old resource version: 1 (");
    }

    @Test
    void authenticationAndAuthorizationErrorsAreStatuses() throws Exception {
        HttpResponse<String> unauthenticated = send(anonymous, "GET", "/api/v1/namespaces/default/pods", null, null);
        assertThat(unauthenticated.statusCode()).isEqualTo(401);
        assertThat(json(unauthenticated).path("reason").asText()).isEqualTo("Unauthorized");

        HttpResponse<String> badToken = send(anonymous, "GET", "/api/v1/namespaces/default/pods", null, null, "Authorization", "Bearer nope");
        assertThat(badToken.statusCode()).isEqualTo(401);

        HttpResponse<String> forbidden = send(anonymous, "GET", "/api/v1/namespaces/default/pods", null, null, "Authorization", "Bearer bob-token");
        assertThat(forbidden.statusCode()).isEqualTo(403);
        assertThat(json(forbidden).path("message").asText())
                .isEqualTo("pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"");
        HttpResponse<String> forbiddenCluster = send(anonymous, "GET", "/apis/apps/v1/deployments", null, null, "Authorization", "Bearer bob-token");
        assertThat(json(forbiddenCluster).path("message").asText())
                .isEqualTo("deployments.apps is forbidden: User \"bob\" cannot list resource \"deployments\" in API group \"apps\" at the cluster scope");

        HttpResponse<String> allowed = send(anonymous, "GET", "/api/v1/namespaces/default/configmaps", null, null, "Authorization", "Bearer bob-token");
        assertThat(allowed.statusCode()).isEqualTo(200);
    }

    @Test
    void fieldValidationRejectsOrWarnsAboutUnknownFields() throws Exception {
        String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\"},\"dataa\":{}}";

        HttpResponse<String> strict = send(admin, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", "application/json", body.formatted("strict"));
        HttpResponse<String> warn = send(admin, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Warn", "application/json", body.formatted("warn"));
        HttpResponse<String> duplicate = send(admin, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", "application/json",
                "{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}");

        assertThat(strict.statusCode()).isEqualTo(400);
        assertThat(json(strict).path("message").asText()).isEqualTo("strict decoding error: unknown field \"dataa\"");
        assertThat(warn.statusCode()).isEqualTo(201);
        assertThat(warn.headers().allValues("warning")).containsExactly("299 - \"unknown field \\\"dataa\\\"\"");
        assertThat(duplicate.statusCode()).isEqualTo(400);
    }

    @Test
    void servesOpenApiDocuments() throws Exception {
        HttpResponse<String> v2 = send(admin, "GET", "/openapi/v2", null, null);
        HttpResponse<String> v3 = send(admin, "GET", "/openapi/v3", null, null);

        assertThat(json(v2).path("swagger").asText()).isEqualTo("2.0");
        String path = json(v3).path("paths").path("api/v1").path("serverRelativeURL").asText();
        assertThat(path).startsWith("/openapi/v3/api/v1");
        assertThat(send(admin, "GET", path, null, null).statusCode()).isEqualTo(200);
    }

    @Test
    void requestBodiesOverThreeMebibytesAreRejected() throws Exception {
        String big = configMap("big", "x".repeat(3 * 1024 * 1024));

        HttpResponse<String> response = send(admin, "POST", "/api/v1/namespaces/default/configmaps", "application/json", big);

        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(json(response).path("reason").asText()).isEqualTo("RequestEntityTooLarge");
    }

    @Test
    void discoveryInLegacyAndAggregatedForms() throws Exception {
        assertThat(json(send(admin, "GET", "/api", null, null)).path("versions").get(0).asText()).isEqualTo("v1");
        JsonNode groups = json(send(admin, "GET", "/apis", null, null));
        assertThat(groups.path("groups").get(0).path("name").asText()).isEqualTo("apps");
        JsonNode core = json(send(admin, "GET", "/api/v1", null, null));
        assertThat(core.path("resources").findValuesAsText("name")).contains("pods", "pods/status", "configmaps", "namespaces");

        HttpResponse<String> aggregated = send(admin, "GET", "/apis", null, null, "Accept", AGGREGATED_ACCEPT);
        assertThat(aggregated.headers().firstValue("content-type")).hasValue("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
        JsonNode apps = json(aggregated).path("items").get(0);
        assertThat(apps.path("metadata").path("name").asText()).isEqualTo("apps");
        JsonNode deployments = apps.path("versions").get(0).path("resources").get(0);
        assertThat(deployments.path("resource").asText()).isEqualTo("deployments");
        assertThat(deployments.path("scope").asText()).isEqualTo("Namespaced");
        assertThat(deployments.path("subresources").get(0).path("subresource").asText()).isEqualTo("status");

        assertThat(send(admin, "GET", "/apis/nothing/v1", null, null).statusCode()).isEqualTo(404);
    }

    @Test
    void healthAndMetrics() throws Exception {
        assertThat(send(admin, "GET", "/healthz", null, null).body()).isEqualTo("ok");
        assertThat(send(admin, "GET", "/readyz?verbose", null, null).body()).contains("[+]etcd ok").endsWith("readyz check passed\n");
        assertThat(send(admin, "GET", "/livez/ping", null, null).body()).isEqualTo("ok");
        send(admin, "GET", "/api/v1/namespaces/default/configmaps", null, null);

        String metrics = send(admin, "GET", "/metrics", null, null).body();

        assertThat(metrics).contains("apiserver_request_total{code=\"200\"");
        assertThat(metrics).contains("verb=\"LIST\"");
        assertThat(metrics).contains("etcd_request_duration_seconds_bucket");
        assertThat(metrics).contains("apiserver_request_duration_seconds_bucket");
    }

    @Test
    void podStatusSubresourceAndCollectionDelete() throws Exception {
        String pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"generateName\":\"web-\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]},\"status\":{\"phase\":\"Running\"}}";
        JsonNode created = json(send(admin, "POST", "/api/v1/namespaces/pods/pods", "application/json", pod));
        String name = created.path("metadata").path("name").asText();
        assertThat(name).startsWith("web-");
        assertThat(created.has("status")).isFalse();

        HttpResponse<String> status = send(admin, "PATCH", "/api/v1/namespaces/pods/pods/" + name + "/status", "application/merge-patch+json", "{\"status\":{\"phase\":\"Running\"}}");
        assertThat(json(status).path("status").path("phase").asText()).isEqualTo("Running");

        HttpResponse<String> dryRun = send(admin, "POST", "/api/v1/namespaces/pods/pods?dryRun=All", "application/json", pod);
        assertThat(dryRun.statusCode()).isEqualTo(201);

        HttpResponse<String> collection = send(admin, "DELETE", "/api/v1/namespaces/pods/pods?labelSelector=app%3Dweb", null, null);
        assertThat(json(collection).path("kind").asText()).isEqualTo("PodList");
        assertThat(json(collection).path("items")).hasSize(1);
        assertThat(json(send(admin, "GET", "/api/v1/namespaces/pods/pods", null, null)).path("items")).isEmpty();
    }
}
