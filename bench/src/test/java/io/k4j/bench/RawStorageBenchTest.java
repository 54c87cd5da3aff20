package io.k4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RawStorageBenchTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theStoredPodIsTheRequestedPodWithWhatTheServerAddsToIt() throws Exception {
        JsonNode requested = JSON.readTree(RawStorageBench.requestSizedValue());
        JsonNode stored = JSON.readTree(RawStorageBench.storedPodValue());

        assertThat(stored.path("metadata").path("name")).isEqualTo(requested.path("metadata").path("name"));
        assertThat(stored.path("metadata").path("namespace")).isEqualTo(requested.path("metadata").path("namespace"));
        assertThat(stored.path("metadata").path("labels")).isEqualTo(requested.path("metadata").path("labels"));
        JsonNode requestedContainer = requested.path("spec").path("containers").path(0);
        JsonNode storedContainer = stored.path("spec").path("containers").path(0);
        for (String field : new String[] {"name", "image", "resources"}) {
            assertThat(storedContainer.path(field)).as(field).isEqualTo(requestedContainer.path(field));
        }
        assertThat(stored.path("spec").path("schedulerName")).isEqualTo(requested.path("spec").path("schedulerName"));
        // What the server adds: defaults, the service account's token volume, the managed fields.
        assertThat(stored.path("spec").path("volumes").path(0).path("name").asText()).startsWith("kube-api-access-");
        assertThat(stored.path("metadata").path("managedFields")).hasSize(1);
        assertThat(stored.path("status").path("phase").asText()).isEqualTo("Pending");
        assertThat(RawStorageBench.storedPodValue().length).isGreaterThan(5 * RawStorageBench.requestSizedValue().length);
    }

    @Test
    void aRunLeavesNothingOfItsOwnInTheStorage(@TempDir Path directory) throws Exception {
        try (SqliteKeyValueStore store = SqliteKeyValueStore.open(directory.resolve("raw.db"))) {
            store.create("/bench/other", new byte[] {1}, Lease.NONE);

            RawStorageBench.Result result = RawStorageBench.creates(store, "/bench/run/", 8, 3_000, RawStorageBench.storedPodValue());

            assertThat(result.creates()).isEqualTo(3_000);
            assertThat(result.perSecond()).isPositive();
            assertThat(store.range(RangeRequest.prefix("/bench/run/")).items()).isEmpty();
            // The writes happened: the revision counts 3,000 creates and as many deletes.
            assertThat(store.currentRevision()).isEqualTo(1 + 2 * 3_000);
            assertThat(store.get("/bench/other")).isNotNull();
        }
    }
}
