package io.k4j.apiserver.registry.core.event;

import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.selection.FieldSelector;
import io.k4j.apiserver.registry.generic.AdmissionChain;
import io.k4j.apiserver.registry.generic.GenericStore;
import io.k4j.apiserver.registry.generic.CachedObject;
import io.k4j.apiserver.registry.generic.ListOptions;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.WatchCache;
import io.k4j.apiserver.registry.generic.WatchItem;
import io.k4j.storage.Lease;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import io.k4j.storage.sqlite.SqliteOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Events expire by themselves after their time to live, on the real SQLite store, as upstream's {@code --event-ttl}. */
class EventTimeToLiveTest {
    private static final Duration TIME_TO_LIVE = Duration.ofMinutes(1);

    /** Storage and store share this clock, so leases expire when the test moves it rather than after real waiting. */
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    private final InstantSource clock = () -> now.get();
    private SqliteKeyValueStore storage;
    private GenericStore events;

    @BeforeEach
    void open(@TempDir Path directory) {
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"), SqliteOptions.defaults().withClock(clock));
        events = new GenericStore(ResourceDefinition.of(new EventStrategy(clock, TIME_TO_LIVE)), storage, AdmissionChain.NONE, clock, 100);
        events.start();
    }

    @AfterEach
    void close() {
        events.close();
        storage.close();
    }

    private static ObjectNode event(String name) {
        return object("{'apiVersion':'v1','kind':'Event','metadata':{'name':'" + name + "','namespace':'default'},"
                + "'involvedObject':{'kind':'Pod','name':'p','namespace':'default'},'reason':'Started','message':'started'}");
    }

    private long leaseOf(String name) {
        return storage.get(events.key("default", name)).lease();
    }

    private void advance(Duration duration) {
        now.updateAndGet(instant -> instant.plus(duration));
    }

    @Test
    void anEventIsDeletedWhenItsTimeToLiveRunsOutAndWatchersSeeDeleted() throws InterruptedException {
        ObjectNode created = events.create(event("started"));
        WatchCache.Watcher watcher = events.watch("default", new ListOptions(ListOptions.EVERYTHING.labelSelector(), ListOptions.EVERYTHING.fieldSelector(),
                0, "", created.at("/metadata/resourceVersion").asText(), "", false, null, 0));
        assertThat(leaseOf("started")).isNotEqualTo(Lease.NONE);

        advance(Duration.ofSeconds(70));

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatThrownBy(() -> events.get("default", "started"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(404)));
        WatchItem item = watcher.poll(Duration.ofSeconds(10));
        assertThat(item).isInstanceOfSatisfying(WatchItem.Event.class, deleted -> {
            assertThat(deleted.type().name()).isEqualTo("DELETED");
            assertThat(deleted.object().name()).isEqualTo("started");
        });
        watcher.close();
    }

    @Test
    void anUpdateStartsTheTimeToLiveAgain() {
        events.create(event("pulled"));
        events.create(event("untouched"));
        long createdLease = leaseOf("pulled");

        advance(Duration.ofSeconds(40));
        events.guaranteedUpdate("default", "pulled", "", current -> {
            current.put("count", 2);
            return current;
        });
        assertThat(leaseOf("pulled")).as("a fresh lease for the full time to live").isNotEqualTo(createdLease);

        // 80 s after the creates, 40 s after the update: the creates' lease has expired, the update's has not.
        advance(Duration.ofSeconds(40));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatThrownBy(() -> events.get("default", "untouched"))
                .isInstanceOf(StatusException.class));
        assertThat(events.get("default", "pulled").path("count").asInt()).isEqualTo(2);

        advance(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatThrownBy(() -> events.get("default", "pulled"))
                .isInstanceOf(StatusException.class));
    }

    @Test
    void eventsWrittenTogetherShareALease() {
        events.create(event("a"));
        advance(Duration.ofSeconds(1));
        events.create(event("b"));
        assertThat(leaseOf("b")).isEqualTo(leaseOf("a"));

        advance(Duration.ofSeconds(10));
        events.create(event("c"));
        assertThat(leaseOf("c")).as("past the reuse window (5% of the time to live)").isNotEqualTo(leaseOf("a"));
    }

    @Test
    void eventsAreReadFromStorageAndNotKeptInTheWatchCache() {
        String afterFirst = events.create(event("started")).at("/metadata/resourceVersion").asText();
        ObjectNode other = event("other");
        other.with("involvedObject").put("name", "q");
        events.create(other);

        assertThat(events.cache().keepsObjects()).as("events are served from storage, as upstream's").isFalse();
        assertThat(events.get("default", "started").path("reason").asText()).isEqualTo("Started");
        ListOptions aboutPodP = new ListOptions(ListOptions.EVERYTHING.labelSelector(), FieldSelector.parse("involvedObject.name=p"), 0, "", "", "", false, null, 0);
        assertThat(events.list("default", aboutPodP).items()).extracting(CachedObject::name).containsExactly("started");
        ListOptions firstPage = new ListOptions(ListOptions.EVERYTHING.labelSelector(), ListOptions.EVERYTHING.fieldSelector(), 1, "", "", "", false, null, 0);
        var page = events.list("default", firstPage);
        assertThat(page.items()).extracting(CachedObject::name).containsExactly("other");
        ListOptions secondPage = new ListOptions(ListOptions.EVERYTHING.labelSelector(), ListOptions.EVERYTHING.fieldSelector(), 1, page.continueToken(), "", "", false, null, 0);
        assertThat(events.list("default", secondPage).items()).extracting(CachedObject::name).containsExactly("started");
        ListOptions atFirst = new ListOptions(ListOptions.EVERYTHING.labelSelector(), ListOptions.EVERYTHING.fieldSelector(), 0, "", afterFirst, ListOptions.EXACT, false, null, 0);
        assertThat(events.list("default", atFirst).items()).as("the state at an earlier revision").extracting(CachedObject::name).containsExactly("started");
        ListOptions future = new ListOptions(ListOptions.EVERYTHING.labelSelector(), ListOptions.EVERYTHING.fieldSelector(), 0, "", "999999", "", false, null, 0);
        assertThatThrownBy(() -> events.list("default", future))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(504));
    }
}
