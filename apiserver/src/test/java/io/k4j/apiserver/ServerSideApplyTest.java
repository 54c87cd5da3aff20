package io.k4j.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.codec.Json;
import io.k4j.apiserver.authentication.Authenticator;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authorization.AuthorizationResult;
import io.k4j.apiserver.registry.core.replicationcontroller.ReplicationControllerStrategy;
import io.k4j.apiserver.registry.generic.GenericStrategy;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.groups.GroupResources;
import io.k4j.apiserver.registry.scale.ScaleSubresource;
import io.k4j.apiserver.testing.TestCertificates;
import io.k4j.apiserver.testing.TestResources;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Server-side apply and managed fields over real HTTPS, on real SQLite storage, including the scale subresource. */
class ServerSideApplyTest {
    private static final String CONFIG_MAPS = "/api/v1/namespaces/default/configmaps";
    private static final String APPLY = "application/apply-patch+yaml";
    private static final String KUBECTL_AGENT = "kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9";

    @TempDir
    static Path directory;

    private static SqliteKeyValueStore storage;
    private static ApiServer server;
    private static HttpClient admin;
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        TestCertificates certificates = new TestCertificates();
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        InstantSource clock = InstantSource.system();
        Authenticator clientCertificates = request -> request.clientCertificates().isEmpty()
                ? Optional.empty()
                : Optional.of(UserInfo.of("admin", List.of(UserInfo.MASTERS_GROUP, UserInfo.AUTHENTICATED_GROUP)));
        ApiServerConfig config = ApiServerConfig.builder(storage, certificates.servingKeyStore(), TestCertificates.PASSWORD)
                .listen("127.0.0.1", 0)
                .clientCaCertificates(List.of(certificates.caCertificate()))
                .authenticators(List.of(clientCertificates))
                .authorizers(List.of(attributes -> AuthorizationResult.allow("")))
                .resources(resources(clock))
                .build();
        server = new ApiServer(config);
        server.start();
        base = "https://127.0.0.1:" + server.port();
        admin = HttpClient.newBuilder().sslContext(certificates.clientContext("admin", List.of(UserInfo.MASTERS_GROUP))).build();
    }

    private static List<ResourceDefinition> resources(InstantSource clock) {
        List<ResourceDefinition> resources = new ArrayList<>(List.of(
                new GenericStrategy(TestResources.PODS, clock).definition(),
                new GenericStrategy(TestResources.CONFIG_MAPS, clock).definition(),
                new GenericStrategy(TestResources.NAMESPACES, clock).definition(),
                new ResourceDefinition(new ReplicationControllerStrategy(clock), Map.of(), List.of(ScaleSubresource.forLabelMap()), Optional.empty())));
        resources.addAll(GroupResources.withCorePodRules(clock).definitions());
        return resources;
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        storage.close();
    }

    @Test
    void applyRequiresAFieldManager() throws Exception {
        HttpResponse<String> missing = send("PATCH", CONFIG_MAPS + "/nameless", APPLY, configMap("nameless", "{a: b}"));
        assertThat(missing.statusCode()).isEqualTo(422);
        assertThat(json(missing).path("message").asText()).isEqualTo("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");

        HttpResponse<String> forcedMerge = send("PATCH", CONFIG_MAPS + "/nameless?force=true", "application/merge-patch+json", "{}");
        assertThat(forcedMerge.statusCode()).isEqualTo(422);
        assertThat(json(forcedMerge).path("message").asText()).isEqualTo("PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch");
    }

    @Test
    void applyCreatesThenUpdatesAndPrunes() throws Exception {
        HttpResponse<String> created = send("PATCH", CONFIG_MAPS + "/applied?fieldManager=tool", APPLY, configMap("applied", "{a: '1', b: '2'}"));
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode entry = json(created).path("metadata").path("managedFields").get(0);
        assertThat(entry.path("manager").asText()).isEqualTo("tool");
        assertThat(entry.path("operation").asText()).isEqualTo("Apply");
        assertThat(entry.path("fieldsV1")).isEqualTo(Json.read("{\"f:data\":{\"f:a\":{},\"f:b\":{}}}"));

        // JSON is YAML too
        HttpResponse<String> changed = send("PATCH", CONFIG_MAPS + "/applied?fieldManager=tool", APPLY,
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"applied\"},\"data\":{\"a\":\"3\"}}");
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(json(changed).path("data")).isEqualTo(Json.read("{\"a\":\"3\"}"));

        HttpResponse<String> dryRun = send("PATCH", CONFIG_MAPS + "/dry?fieldManager=tool&dryRun=All", APPLY, configMap("dry", "{a: '1'}"));
        assertThat(dryRun.statusCode()).isEqualTo(201);
        assertThat(send("GET", CONFIG_MAPS + "/dry", null, null).statusCode()).isEqualTo(404);
    }

    @Test
    void writesRecordTheirManagerFromTheParameterOrTheUserAgent() throws Exception {
        HttpResponse<String> created = send("POST", CONFIG_MAPS, "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"created\"},\"data\":{\"replicas\":\"1\"}}", "User-Agent", KUBECTL_AGENT);
        assertThat(managers(json(created))).containsExactly("kubectl/Update");

        HttpResponse<String> patched = send("PATCH", CONFIG_MAPS + "/created?fieldManager=kubectl-edit", "application/merge-patch+json", "{\"data\":{\"other\":\"x\"}}");
        assertThat(managers(json(patched))).containsExactly("kubectl/Update", "kubectl-edit/Update");

        // A client may rewrite managed fields; a single empty entry clears them, as upstream documents.
        HttpResponse<String> cleared = send("PATCH", CONFIG_MAPS + "/created", "application/merge-patch+json", "{\"metadata\":{\"managedFields\":[{}]}}");
        assertThat(json(cleared).path("metadata").has("managedFields")).isFalse();

        HttpResponse<String> tooLong = send("POST", CONFIG_MAPS + "?fieldManager=" + "x".repeat(129), "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"long\"}}");
        assertThat(tooLong.statusCode()).isEqualTo(422);
        assertThat(json(tooLong).path("message").asText()).startsWith("CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long");
    }

    @Test
    void conflictsAre409UnlessForced() throws Exception {
        send("POST", CONFIG_MAPS + "?fieldManager=kubectl-client-side-apply", "application/json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"contested\"},\"data\":{\"replicas\":\"1\"}}");

        HttpResponse<String> conflict = send("PATCH", CONFIG_MAPS + "/contested?fieldManager=other", APPLY, configMap("contested", "{replicas: '2'}"));
        assertThat(conflict.statusCode()).isEqualTo(409);
        JsonNode status = json(conflict);
        assertThat(status.path("reason").asText()).isEqualTo("Conflict");
        assertThat(status.path("message").asText()).isEqualTo("Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using v1: .data.replicas");
        assertThat(status.path("details").path("causes")).isEqualTo(Json.read(
                "[{\"reason\":\"FieldManagerConflict\",\"message\":\"conflict with \\\"kubectl-client-side-apply\\\" using v1\",\"field\":\".data.replicas\"}]"));

        HttpResponse<String> forced = send("PATCH", CONFIG_MAPS + "/contested?fieldManager=other&force=true", APPLY, configMap("contested", "{replicas: '2'}"));
        assertThat(forced.statusCode()).isEqualTo(200);
        assertThat(json(forced).path("data").path("replicas").asText()).isEqualTo("2");
        // the creator keeps owning the data map itself, not the field taken from it
        assertThat(managers(json(forced))).containsExactly("other/Apply", "kubectl-client-side-apply/Update");
        assertThat(json(forced).path("metadata").path("managedFields").get(1).path("fieldsV1")).isEqualTo(Json.read("{\"f:data\":{}}"));
    }

    @Test
    void applyRejectsUnknownAndDuplicateFields() throws Exception {
        HttpResponse<String> unknown = send("PATCH", CONFIG_MAPS + "/odd?fieldManager=tool", APPLY, configMap("odd", "{a: b}") + "colour: blue\n");
        assertThat(unknown.statusCode()).isEqualTo(500);
        assertThat(json(unknown).path("message").asText()).isEqualTo("failed to create typed patch object (/odd; /v1, Kind=ConfigMap): .colour: field not declared in schema");

        String duplicated = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice}\ndata: {a: b}\ndata: {a: c}\n";
        HttpResponse<String> strict = send("PATCH", CONFIG_MAPS + "/twice?fieldManager=tool&fieldValidation=Strict", APPLY, duplicated);
        assertThat(strict.statusCode()).isEqualTo(400);
        assertThat(json(strict).path("message").asText()).startsWith("error strict decoding YAML: ");
        HttpResponse<String> warned = send("PATCH", CONFIG_MAPS + "/twice?fieldManager=tool", APPLY, duplicated);
        assertThat(warned.statusCode()).isEqualTo(201);
        assertThat(warned.headers().allValues("Warning")).isNotEmpty();
    }

    @Test
    void statusWritesAreRecordedWithTheirSubresource() throws Exception {
        String pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"runner\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
        assertThat(send("POST", "/api/v1/namespaces/default/pods?fieldManager=kubectl-create", "application/json", pod).statusCode()).isEqualTo(201);

        HttpResponse<String> status = send("PATCH", "/api/v1/namespaces/default/pods/runner/status?fieldManager=kubelet", "application/merge-patch+json",
                "{\"status\":{\"phase\":\"Running\"}}");

        JsonNode managedFields = json(status).path("metadata").path("managedFields");
        JsonNode kubelet = managedFields.get(1);
        assertThat(kubelet.path("manager").asText()).isEqualTo("kubelet");
        assertThat(kubelet.path("subresource").asText()).isEqualTo("status");
        assertThat(kubelet.path("fieldsV1")).isEqualTo(Json.read("{\"f:status\":{\"f:phase\":{}}}"));
    }

    /** Server-side apply to the scale subresource of every scalable kind: the applier owns the parent's spec.replicas. */
    @ParameterizedTest
    @ValueSource(strings = {"apps/v1/deployments/Deployment", "apps/v1/replicasets/ReplicaSet", "apps/v1/statefulsets/StatefulSet",
            "v1/replicationcontrollers/ReplicationController"})
    void applyToTheScaleSubresourceOwnsTheParentsReplicas(String resource) throws Exception {
        int slash = resource.lastIndexOf('/');
        String kind = resource.substring(slash + 1);
        String apiVersion = resource.substring(0, resource.lastIndexOf('/', slash - 1));
        String plural = resource.substring(apiVersion.length() + 1, slash);
        String collection = (apiVersion.equals("v1") ? "/api/v1" : "/apis/" + apiVersion) + "/namespaces/default/" + plural;
        String name = "scaled-" + plural;
        String selector = kind.equals("ReplicationController") ? "{\"app\":\"" + name + "\"}" : "{\"matchLabels\":{\"app\":\"" + name + "\"}}";
        String parent = "{\"apiVersion\":\"" + apiVersion + "\",\"kind\":\"" + kind + "\",\"metadata\":{\"name\":\"" + name + "\"},"
                + "\"spec\":{\"replicas\":1,\"selector\":" + selector + ",\"template\":{\"metadata\":{\"labels\":{\"app\":\"" + name + "\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}";
        HttpResponse<String> created = send("POST", collection + "?fieldManager=kubectl-create", "application/json", parent);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String scale = collection + "/" + name + "/scale";
        String configuration = "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: " + name + "\nspec:\n  replicas: 3\n";

        HttpResponse<String> conflict = send("PATCH", scale + "?fieldManager=scaler", APPLY, configuration);
        assertThat(conflict.statusCode()).as(conflict.body()).isEqualTo(409);
        // as upstream, the conflict is found on the Scale, whose managed fields are in its own version
        assertThat(json(conflict).path("message").asText())
                .isEqualTo("Apply failed with 1 conflict: conflict with \"kubectl-create\" using autoscaling/v1: .spec.replicas");

        HttpResponse<String> forced = send("PATCH", scale + "?fieldManager=scaler&force=true", APPLY, configuration);
        assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);
        assertThat(json(forced).path("kind").asText()).isEqualTo("Scale");
        assertThat(json(forced).path("spec").path("replicas").asInt()).isEqualTo(3);
        JsonNode stored = json(send("GET", collection + "/" + name, null, null));
        assertThat(stored.path("spec").path("replicas").asInt()).isEqualTo(3);
        assertThat(managers(stored)).containsExactly("scaler/Apply", "kubectl-create/Update");
        JsonNode applier = stored.path("metadata").path("managedFields").get(0);
        assertThat(applier.path("subresource").asText()).isEqualTo("scale");
        assertThat(applier.path("apiVersion").asText()).isEqualTo(apiVersion);
        assertThat(applier.path("fieldsV1")).isEqualTo(Json.read("{\"f:spec\":{\"f:replicas\":{}}}"));
        JsonNode creator = stored.path("metadata").path("managedFields").get(1);
        assertThat(creator.path("fieldsV1").path("f:spec").has("f:replicas")).isFalse();
        assertThat(creator.path("fieldsV1").path("f:spec").has("f:template")).isTrue();

        // the owner applies again without force; a dry run changes nothing
        HttpResponse<String> again = send("PATCH", scale + "?fieldManager=scaler", APPLY, configuration.replace("replicas: 3", "replicas: 4"));
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        HttpResponse<String> dryRun = send("PATCH", scale + "?fieldManager=scaler&dryRun=All", APPLY, configuration.replace("replicas: 3", "replicas: 9"));
        assertThat(json(dryRun).path("spec").path("replicas").asInt()).isEqualTo(9);
        assertThat(json(send("GET", collection + "/" + name, null, null)).path("spec").path("replicas").asInt()).isEqualTo(4);

        // an update through the scale (kubectl scale) takes the replicas over, recorded with the subresource
        HttpResponse<String> scaled = send("PATCH", scale + "?fieldManager=kubectl", "application/merge-patch+json", "{\"spec\":{\"replicas\":5}}");
        assertThat(scaled.statusCode()).as(scaled.body()).isEqualTo(200);
        JsonNode afterUpdate = json(send("GET", collection + "/" + name, null, null));
        assertThat(afterUpdate.path("spec").path("replicas").asInt()).isEqualTo(5);
        assertThat(managers(afterUpdate)).containsExactlyInAnyOrder("kubectl-create/Update", "kubectl/Update");
        JsonNode updater = entry(afterUpdate, "kubectl");
        assertThat(updater.path("subresource").asText()).isEqualTo("scale");
        assertThat(updater.path("apiVersion").asText()).isEqualTo(apiVersion);
        HttpResponse<String> lost = send("PATCH", scale + "?fieldManager=scaler", APPLY, configuration);
        assertThat(lost.statusCode()).isEqualTo(409);
        assertThat(json(lost).path("message").asText())
                .isEqualTo("Apply failed with 1 conflict: conflict with \"kubectl\" with subresource \"scale\" using autoscaling/v1: .spec.replicas");

        HttpResponse<String> wrongKind = send("PATCH", scale + "?fieldManager=scaler", APPLY, configuration.replace("kind: Scale", "kind: " + kind)
                .replace("autoscaling/v1", apiVersion));
        assertThat(wrongKind.statusCode()).isEqualTo(400);
        assertThat(send("PATCH", scale + "?fieldManager=scaler&force=true", APPLY, configuration.replace("replicas: 3", "replicas: -1")).statusCode()).isEqualTo(422);
        assertThat(send("PATCH", collection + "/missing/scale?fieldManager=scaler", APPLY, configuration).statusCode()).isEqualTo(404);
    }

    private static JsonNode entry(JsonNode object, String manager) {
        for (JsonNode entry : object.path("metadata").path("managedFields")) {
            if (entry.path("manager").asText().equals(manager)) {
                return entry;
            }
        }
        throw new AssertionError("no managed fields entry of " + manager + " in " + object);
    }

    private static List<String> managers(JsonNode object) {
        List<String> managers = new ArrayList<>();
        object.path("metadata").path("managedFields").forEach(entry -> managers.add(entry.path("manager").asText() + "/" + entry.path("operation").asText()));
        return managers;
    }

    private static String configMap(String name, String data) {
        return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata: " + data + "\n";
    }

    private static HttpResponse<String> send(String method, String path, String contentType, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return admin.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return Json.mapper().readTree(response.body());
    }
}
