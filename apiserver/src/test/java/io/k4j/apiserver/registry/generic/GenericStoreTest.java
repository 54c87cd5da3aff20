package io.k4j.apiserver.registry.generic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.api.selection.FieldSelector;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.MutatingAdmissionPlugin;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import io.k4j.apiserver.testing.TestResources;
import io.k4j.storage.Lease;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenericStoreTest {
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-01-02T03:04:05Z"));
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private SqliteKeyValueStore storage;

    @BeforeEach
    void openStorage(@TempDir Path directory) {
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
        storage.close();
    }

    private GenericStore store(ResourceDefinition definition, AdmissionChain admission) {
        GenericStore store = new GenericStore(definition, storage, admission, CLOCK, 100);
        store.start();
        closeables.add(store);
        return store;
    }

    private GenericStore pods() {
        return store(new GenericStrategy(TestResources.PODS, CLOCK).definition(), AdmissionChain.NONE);
    }

    private static ObjectNode pod(String name, Map<String, String> labels) {
        ObjectNode pod = Json.object();
        pod.put("apiVersion", "v1").put("kind", "Pod");
        ObjectNode metadata = pod.putObject("metadata");
        if (name != null) {
            metadata.put("name", name);
        }
        ObjectNode labelNode = metadata.putObject("labels");
        labels.forEach(labelNode::put);
        pod.putObject("spec").putArray("containers").addObject().put("name", "c").put("image", "busybox");
        pod.putObject("status").put("phase", "Running");
        return pod;
    }

    /** A validating plugin that sees {@code handled} operations and refuses the object named {@code deniedName}. */
    private static ValidatingAdmissionPlugin denier(String deniedName, Predicate<Operation> handled, Consumer<AdmissionAttributes> seen) {
        return new ValidatingAdmissionPlugin() {
            @Override
            public void validate(AdmissionAttributes attributes) {
                seen.accept(attributes);
                if (attributes.name().equals(deniedName)) {
                    throw StatusException.forbidden("pods \"" + deniedName + "\" is forbidden: denied");
                }
            }

            @Override
            public String name() {
                return "Denier";
            }

            @Override
            public boolean handles(Operation operation) {
                return handled.test(operation);
            }
        };
    }

    private static OperationContext user() {
        return new OperationContext(OperationContext.SYSTEM_USER, false, true);
    }

    @Test
    void createStoresUnderUpstreamKeyAndSetsSystemFields() {
        GenericStore pods = pods();
        ObjectNode created = pods.create("default", pod("web", Map.of()), user()).object();

        assertThat(storage.get("/registry/pods/default/web")).isNotNull();
        assertThat(ObjectMetadata.text(created, "uid")).hasSize(36);
        assertThat(ObjectMetadata.text(created, "creationTimestamp")).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(ObjectMetadata.text(created, "namespace")).isEqualTo("default");
        assertThat(ObjectMetadata.text(created, "resourceVersion")).isEqualTo(Long.toString(storage.currentRevision()));
        assertThat(created.has("status")).as("status is cleared on create").isFalse();
        assertThat(created.path("metadata").path("generation").asLong()).isEqualTo(1);
        assertThat(new String(storage.get("/registry/pods/default/web").value())).doesNotContain("resourceVersion");
    }

    @Test
    void writesAnswerAndCacheTheJsonThatDecodingTheStoredObjectGives() {
        GenericStore pods = pods();
        WriteResult created = pods.create("default", pod("web", Map.of("app", "a")), user());
        WriteResult updated = pods.update("default", "web", "", current -> {
            ((ObjectNode) current.get("metadata")).putObject("labels").put("app", "b");
            return current;
        }, user());

        String key = "/registry/pods/default/web";
        CachedObject decoded = pods.decode(storage.get(key));
        assertThat(updated.json()).hasValueSatisfying(json -> assertThat(new String(json)).isEqualTo(new String(decoded.json())));
        assertThat(created.json()).hasValueSatisfying(json -> assertThat(new String(json)).isEqualTo(Json.writeString(created.object())));
        CachedObject cached = pods.get("default", "web", "");
        assertThat(new String(cached.json())).isEqualTo(new String(decoded.json()));
        assertThat(cached.labels()).isEqualTo(Map.of("app", "b"));
        assertThat(cached.fields()).isEqualTo(decoded.fields());
        assertThat(cached.revision()).isEqualTo(storage.currentRevision());
    }

    /** Pods in a second store over the same storage, whose watch cache the test can hold behind. */
    private GenericStore podsOver(HeldWatchStorage held) {
        GenericStore store = new GenericStore(new GenericStrategy(TestResources.PODS, CLOCK).definition(), held, AdmissionChain.NONE, CLOCK, 100);
        store.start();
        closeables.add(store);
        return store;
    }

    private static WriteResult setLabel(GenericStore pods, String key, String value) {
        return pods.update("default", "web", "", current -> {
            current.with("metadata").with("labels").put(key, value);
            return current;
        }, user());
    }

    @Test
    void updatesStartFromTheWatchCacheAndRetryAgainstStorageWhenItIsBehind() {
        GenericStore first = pods();
        HeldWatchStorage held = new HeldWatchStorage(storage);
        GenericStore second = podsOver(held);
        first.create("default", pod("web", Map.of("app", "a", "tier", "web")), user());
        assertThat(second.cache().waitForRevision(storage.currentRevision(), Duration.ofSeconds(10))).isTrue();
        held.hold();
        try {
            setLabel(first, "app", "b");
            first.update("default", "web", "", current -> {
                current.with("metadata").with("labels").remove("tier");
                return current;
            }, user());
            long behind = second.cache().get("/registry/pods/default/web").revision();
            assertThat(behind).as("the second store's cache is held behind storage").isLessThan(storage.currentRevision());

            // Its stale copy has app=a: the conditional write fails and the update is computed again from storage.
            WriteResult added = setLabel(second, "zone", "z1");
            assertThat(added.object().path("metadata").path("labels").properties()).extracting(Map.Entry::getKey).containsExactlyInAnyOrder("app", "zone");
            assertThat(added.object().path("metadata").path("labels").path("app").asText()).isEqualTo("b");

            // On the stale copy (tier=web) this would change nothing; in storage tier is gone, so it is written.
            long beforeTier = storage.currentRevision();
            WriteResult tier = setLabel(second, "tier", "web");
            assertThat(storage.currentRevision()).isEqualTo(beforeTier + 1);
            assertThat(Json.read(storage.get("/registry/pods/default/web").value()).path("metadata").path("labels").path("tier").asText()).isEqualTo("web");
            assertThat(ObjectMetadata.text(tier.object(), "resourceVersion")).isEqualTo(Long.toString(storage.currentRevision()));

            // A client that read the newest version sends its resourceVersion: newer than the cache, not a conflict.
            String newest = Long.toString(storage.currentRevision());
            WriteResult conditional = second.update("default", "web", "", current -> {
                current.with("metadata").put("resourceVersion", newest).with("labels").put("app", "c");
                return current;
            }, user());
            assertThat(conditional.object().path("metadata").path("labels").path("app").asText()).isEqualTo("c");
            assertThatThrownBy(() -> second.update("default", "web", "", current -> {
                current.with("metadata").put("resourceVersion", newest);
                return current;
            }, user())).isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(409));
        } finally {
            held.release();
        }
    }

    @Test
    void readsForReadingShareOneParseOfTheCachedObjectWhileGetsAndListsCopy() {
        GenericStore pods = pods();
        pods.create("default", pod("web", Map.of("app", "a")), user());

        ObjectNode shared = pods.getForReading("default", "web");
        assertThat(pods.getForReading("default", "web")).isSameAs(shared);
        assertThat(pods.listForReading("default")).singleElement().isSameAs(shared);
        assertThat(pods.get("default", "web")).isEqualTo(shared).isNotSameAs(shared);
        assertThat(pods.list("default")).singleElement().isEqualTo(shared).isNotSameAs(shared);
        pods.get("default", "web").with("metadata").putObject("labels").put("app", "changed");
        assertThat(shared.path("metadata").path("labels").path("app").asText()).isEqualTo("a");
        assertThatThrownBy(() -> pods.getForReading("default", "absent"))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(404));
    }

    @Test
    void createRejectsDuplicatesMismatchesAndInvalidNames() {
        GenericStore pods = pods();
        pods.create("default", pod("web", Map.of()), user());

        assertThatThrownBy(() -> pods.create("default", pod("web", Map.of()), user()))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("pods \"web\" already exists"));
        ObjectNode otherNamespace = pod("x", Map.of());
        ((ObjectNode) otherNamespace.get("metadata")).put("namespace", "kube-system");
        assertThatThrownBy(() -> pods.create("default", otherNamespace, user()))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(400));
        ObjectNode wrongKind = pod("y", Map.of()).put("kind", "Service");
        assertThatThrownBy(() -> pods.create("default", wrongKind, user()))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(400));
        assertThatThrownBy(() -> pods.create("default", pod("Bad_Name", Map.of()), user()))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).startsWith("Pod \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain");
                });
    }

    @Test
    void generateNameAddsRandomSuffix() {
        GenericStore pods = pods();
        ObjectNode body = pod(null, Map.of());
        ((ObjectNode) body.get("metadata")).put("generateName", "web-");

        ObjectNode created = pods.create("default", body, user()).object();

        assertThat(ObjectMetadata.text(created, "name")).matches("web-[bcdfghjklmnpqrstvwxz2456789]{5}");
    }

    @Test
    void dryRunStoresNothing() {
        GenericStore pods = pods();
        long before = storage.currentRevision();

        ObjectNode created = pods.create("default", pod("web", Map.of()), new OperationContext(OperationContext.SYSTEM_USER, true, true)).object();

        assertThat(ObjectMetadata.text(created, "uid")).isNotEmpty();
        assertThat(storage.currentRevision()).isEqualTo(before);
    }

    @Test
    void admissionRunsInOrderAndRejectionStoresNothing() {
        List<String> calls = new ArrayList<>();
        MutatingAdmissionPlugin labeler = new MutatingAdmissionPlugin() {
            @Override
            public void admit(AdmissionAttributes attributes) {
                calls.add("mutate");
                ((ObjectNode) attributes.object().get("metadata")).with("labels").put("admitted", "yes");
            }

            @Override
            public String name() {
                return "Labeler";
            }

            @Override
            public boolean handles(Operation operation) {
                return operation == Operation.CREATE;
            }
        };
        ValidatingAdmissionPlugin denier = denier("denied", operation -> true,
                attributes -> calls.add("validate " + attributes.object().path("metadata").path("labels").path("admitted").asText()));
        GenericStore pods = store(new GenericStrategy(TestResources.PODS, CLOCK).definition(), new AdmissionChain(List.of(labeler, denier)));

        ObjectNode created = pods.create("default", pod("allowed", Map.of()), user()).object();
        assertThatThrownBy(() -> pods.create("default", pod("denied", Map.of()), user())).isInstanceOf(StatusException.class);

        assertThat(created.path("metadata").path("labels").path("admitted").asText()).isEqualTo("yes");
        assertThat(calls).containsExactly("mutate", "validate yes", "mutate", "validate yes");
        assertThat(storage.get("/registry/pods/default/denied")).isNull();
    }

    @Test
    void updateWithStaleResourceVersionConflicts() {
        GenericStore pods = pods();
        ObjectNode created = pods.create("default", pod("web", Map.of()), user()).object();
        ObjectNode first = created.deepCopy();
        ((ObjectNode) first.get("metadata")).with("labels").put("a", "1");
        pods.update("default", "web", "", current -> first, user());

        ObjectNode stale = created.deepCopy();
        ((ObjectNode) stale.get("metadata")).with("labels").put("a", "2");
        assertThatThrownBy(() -> pods.update("default", "web", "", current -> stale, user()))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(409);
                    assertThat(e.getMessage()).isEqualTo("Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to the latest version and try again");
                });
    }

    @Test
    void updateKeepsStatusBumpsGenerationOnSpecChangeAndStatusSubresourceKeepsSpec() {
        GenericStore pods = pods();
        pods.create("default", pod("web", Map.of()), user());

        ObjectNode withStatus = pods.update("default", "web", "status", current -> {
            current.putObject("status").put("phase", "Running");
            ((ObjectNode) current.get("spec")).put("nodeName", "ignored");
            return current;
        }, user()).object();
        assertThat(withStatus.path("status").path("phase").asText()).isEqualTo("Running");
        assertThat(withStatus.path("spec").has("nodeName")).isFalse();

        ObjectNode changed = pods.update("default", "web", "", current -> {
            current.remove("status");
            ((ObjectNode) current.get("spec")).put("nodeName", "node-1");
            return current;
        }, user()).object();
        assertThat(changed.path("status").path("phase").asText()).isEqualTo("Running");
        assertThat(changed.path("metadata").path("generation").asLong()).isEqualTo(2);
    }

    @Test
    void noOpUpdateWritesNothing() {
        GenericStore pods = pods();
        ObjectNode created = pods.create("default", pod("web", Map.of()), user()).object();
        long before = storage.currentRevision();

        ObjectNode result = pods.update("default", "web", "", current -> current, user()).object();

        assertThat(storage.currentRevision()).isEqualTo(before);
        assertThat(ObjectMetadata.text(result, "resourceVersion")).isEqualTo(ObjectMetadata.text(created, "resourceVersion"));
    }

    @Test
    void finalizersKeepObjectUntilRemoved() {
        GenericStore pods = pods();
        ObjectNode body = pod("web", Map.of());
        ((ObjectNode) body.get("metadata")).putArray("finalizers").add("example.com/keep");
        pods.create("default", body, user());

        WriteResult marked = pods.delete("default", "web", DeleteOptions.DEFAULT, user());
        assertThat(marked.deleted()).isFalse();
        assertThat(ObjectMetadata.text(marked.object(), "deletionTimestamp")).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(storage.get("/registry/pods/default/web")).isNotNull();

        WriteResult finished = pods.update("default", "web", "", current -> {
            ((ObjectNode) current.get("metadata")).remove("finalizers");
            return current;
        }, user());
        assertThat(finished.deleted()).isTrue();
        assertThat(storage.get("/registry/pods/default/web")).isNull();
    }

    @Test
    void strategyPendingFinalizationKeepsObjectLikeNamespaces() {
        GenericStrategy base = new GenericStrategy(TestResources.NAMESPACES, CLOCK);
        ResourceStrategy namespaces = new DelegatingStrategy(base) {
            @Override
            public boolean hasPendingFinalization(ObjectNode object) {
                return object.path("spec").path("finalizers").size() > 0;
            }

            @Override
            public void prepareForDelete(ObjectNode object) {
                object.with("status").put("phase", "Terminating");
            }
        };
        GenericStore store = store(ResourceDefinition.of(namespaces), AdmissionChain.NONE);
        ObjectNode namespace = Json.object();
        namespace.putObject("metadata").put("name", "dev");
        namespace.putObject("spec").putArray("finalizers").add("kubernetes");
        store.create("", namespace, user());

        WriteResult marked = store.delete("", "dev", DeleteOptions.DEFAULT, user());
        assertThat(marked.deleted()).isFalse();
        assertThat(marked.object().path("status").path("phase").asText()).isEqualTo("Terminating");

        WriteResult finalized = store.update("", "dev", "", current -> {
            ((ObjectNode) current.get("spec")).putArray("finalizers");
            return current;
        }, user());
        assertThat(finalized.deleted()).isTrue();
        assertThat(storage.get("/registry/namespaces/dev")).isNull();
    }

    @Test
    void propagationPoliciesAddUpstreamFinalizers() {
        GenericStore pods = pods();
        pods.create("default", pod("orphaned", Map.of()), user());
        pods.create("default", pod("foreground", Map.of()), user());

        ObjectNode orphaned = pods.delete("default", "orphaned", new DeleteOptions(null, null, null, "Orphan", null), user()).object();
        ObjectNode foreground = pods.delete("default", "foreground", new DeleteOptions(null, null, null, "Foreground", null), user()).object();

        assertThat(orphaned.path("metadata").path("finalizers").get(0).asText()).isEqualTo("orphan");
        assertThat(foreground.path("metadata").path("finalizers").get(0).asText()).isEqualTo("foregroundDeletion");
    }

    @Test
    void anImmediateDeleteAnswersWithTheObjectAsLastStored() {
        GenericStore pods = pods();
        pods.create("default", pod("web", Map.of("app", "web")), user());
        ObjectNode stored = pods.get("default", "web");

        ObjectNode deleted = pods.delete("default", "web", DeleteOptions.DEFAULT, user()).object();

        // As upstream's etcd store: the object before the delete, with the revision it was last written at.
        assertThat(deleted).isEqualTo(stored);
        assertThat(deleted.path("metadata").path("resourceVersion").asText()).isNotEmpty();
    }

    @Test
    void deletePreconditionsAreChecked() {
        GenericStore pods = pods();
        pods.create("default", pod("web", Map.of()), user());

        assertThatThrownBy(() -> pods.delete("default", "web", new DeleteOptions(null, "other-uid", null, null, null), user()))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).contains("Precondition failed: UID in precondition: other-uid, UID in object meta: "));
        assertThat(pods.delete("default", "web", DeleteOptions.DEFAULT, user()).deleted()).isTrue();
        assertThatThrownBy(() -> pods.get("default", "web")).isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(404));
    }

    @Test
    void deleteCollectionDeletesEveryMatchInListOrderWithDeletesInFlightTogether() {
        GenericStore pods = pods();
        for (int i = 0; i < 60; i++) {
            pods.create("default", pod(String.format("pod-%02d", i), Map.of("app", i % 3 == 0 ? "gone" : "kept")), user());
        }
        pods.create("other", pod("pod-00", Map.of("app", "gone")), user());

        ListResult deleted = pods.deleteCollection("default",
                ListOptions.EVERYTHING.withSelectors(LabelSelector.parse("app=gone"), FieldSelector.everything()), DeleteOptions.DEFAULT, user());

        assertThat(deleted.items()).extracting(CachedObject::name)
                .containsExactlyElementsOf(IntStream.range(0, 60).filter(i -> i % 3 == 0).mapToObj(i -> String.format("pod-%02d", i)).toList());
        assertThat(pods.list("default", ListOptions.EVERYTHING).items()).hasSize(40).extracting(CachedObject::labels)
                .allSatisfy(labels -> assertThat(labels).containsEntry("app", "kept"));
        assertThat(pods.list("other", ListOptions.EVERYTHING).items()).hasSize(1);
    }

    @Test
    void deleteCollectionReportsARefusedDeleteAndKeepsThatObject() {
        ValidatingAdmissionPlugin denier = denier("pod-07", operation -> operation == Operation.DELETE, attributes -> { });
        GenericStore pods = store(new GenericStrategy(TestResources.PODS, CLOCK).definition(), new AdmissionChain(List.of(denier)));
        for (int i = 0; i < 20; i++) {
            pods.create("default", pod(String.format("pod-%02d", i), Map.of()), user());
        }

        assertThatThrownBy(() -> pods.deleteCollection("default", ListOptions.EVERYTHING, DeleteOptions.DEFAULT, user()))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(403));
        assertThat(pods.get("default", "pod-07")).isNotNull();
    }

    @Test
    void listFiltersBySelectorsAndPagesWithContinueTokens() {
        GenericStore pods = pods();
        for (int i = 0; i < 5; i++) {
            pods.create("default", pod("pod-" + i, Map.of("app", i % 2 == 0 ? "even" : "odd")), user());
        }
        pods.create("other", pod("pod-x", Map.of("app", "even")), user());

        ListResult even = pods.list("default", ListOptions.EVERYTHING.withSelectors(LabelSelector.parse("app in (even)"), FieldSelector.everything()));
        assertThat(even.items()).extracting(CachedObject::name).containsExactly("pod-0", "pod-2", "pod-4");
        ListResult everywhere = pods.list("", ListOptions.EVERYTHING.withSelectors(LabelSelector.parse("app=even"), FieldSelector.parse("metadata.namespace!=default")));
        assertThat(everywhere.items()).extracting(CachedObject::name).containsExactly("pod-x");
        assertThatThrownBy(() -> pods.list("", ListOptions.EVERYTHING.withSelectors(LabelSelector.everything(), FieldSelector.parse("spec.unknown=x"))))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("field label not supported: spec.unknown"));

        ListOptions firstPage = new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 2, "", "", "", false, null, 0);
        ListResult page1 = pods.list("default", firstPage);
        pods.create("default", pod("pod-9", Map.of()), user());
        ListResult page2 = pods.list("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 2, page1.continueToken(), "", "", false, null, 0));
        ListResult page3 = pods.list("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 2, page2.continueToken(), "", "", false, null, 0));

        assertThat(page1.items()).extracting(CachedObject::name).containsExactly("pod-0", "pod-1");
        assertThat(page1.remainingItemCount()).isEqualTo(3);
        assertThat(page2.items()).extracting(CachedObject::name).containsExactly("pod-2", "pod-3");
        assertThat(page3.items()).extracting(CachedObject::name).containsExactly("pod-4");
        assertThat(page3.continueToken()).isEmpty();
        assertThat(page3.revision()).isEqualTo(page1.revision());

        storage.compact(storage.currentRevision());
        assertThatThrownBy(() -> pods.list("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 2, page1.continueToken(), "", "", false, null, 0)))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(410));
    }

    @Test
    void aQuietResourcesPagedListStaysValidWhileOthersMoveTheRevisionOnAndCompactionFollows() {
        GenericStore pods = pods();
        for (int i = 0; i < 3; i++) {
            pods.create("default", pod("pod-" + i, Map.of()), user());
        }
        // Other resources change (as node heartbeats do all the time); compaction then passes the pods' last change.
        for (int i = 0; i < 5; i++) {
            storage.create("/registry/configmaps/default/moved-on-" + i, "{}".getBytes(StandardCharsets.UTF_8), Lease.NONE);
        }
        long current = storage.currentRevision();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            storage.requestWatchProgress();
            assertThat(pods.list("default", ListOptions.EVERYTHING).revision()).isEqualTo(current);
        });
        storage.compact(current);

        ListOptions firstPage = new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 2, "", "", "", false, null, 0);
        ListResult page1 = pods.list("default", firstPage);
        ListResult page2 = pods.list("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 2, page1.continueToken(), "", "", false, null, 0));

        assertThat(page1.revision()).isEqualTo(current);
        assertThat(page1.items()).extracting(CachedObject::name).containsExactly("pod-0", "pod-1");
        assertThat(page2.items()).extracting(CachedObject::name).containsExactly("pod-2");
        ListOptions exact = new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 0, "", Long.toString(current), ListOptions.EXACT, false, null, 0);
        assertThat(pods.list("default", exact).items()).hasSize(3);
    }

    @Test
    void pagedListAtAResourceVersionWithoutMatchIsAnExactRead() {
        GenericStore pods = pods();
        pods.create("default", pod("pod-0", Map.of()), user());
        long before = pods.list("default", ListOptions.EVERYTHING).revision();
        pods.create("default", pod("pod-1", Map.of()), user());
        pods.create("default", pod("pod-2", Map.of()), user());

        ListResult legacy = pods.list("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 5, "", Long.toString(before), "", false, null, 0));
        ListResult notOlder = pods.list("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 5, "", Long.toString(before), ListOptions.NOT_OLDER_THAN, false, null, 0));

        assertThat(legacy.revision()).isEqualTo(before);
        assertThat(legacy.items()).extracting(CachedObject::name).containsExactly("pod-0");
        assertThat(notOlder.revision()).isGreaterThanOrEqualTo(before);
        assertThat(notOlder.items()).extracting(CachedObject::name).startsWith("pod-0");
    }

    @Test
    void anExactListAtACompactedRevisionIsExpiredThoughTheCacheStillHoldsItsState() {
        GenericStore pods = pods();
        pods.create("default", pod("pod-0", Map.of()), user());
        pods.create("default", pod("pod-1", Map.of()), user());
        long before = pods.list("default", ListOptions.EVERYTHING).revision();
        ListOptions unpaged = new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 0, "", Long.toString(before), ListOptions.EXACT, false, null, 0);
        ListOptions paged = new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 1, "", Long.toString(before), ListOptions.EXACT, false, null, 0);
        assertThat(pods.list("default", unpaged).items()).hasSize(2);
        assertThat(pods.list("default", paged).items()).hasSize(1);

        // Another resource moves the revision on; the pods' cache still holds the state at `before`.
        storage.create("/registry/configmaps/default/moved-on", "{}".getBytes(StandardCharsets.UTF_8), Lease.NONE);
        storage.compact(storage.currentRevision());

        for (ListOptions options : List.of(unpaged, paged)) {
            assertThatThrownBy(() -> pods.list("default", options)).as("limit %d", options.limit())
                    .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(410));
        }
        assertThat(pods.list("default", ListOptions.EVERYTHING).items()).hasSize(2);
    }

    @Test
    void pagesOfALargeListFollowEachOtherWithoutGapsOrDuplicates() {
        GenericStore pods = pods();
        for (int i = 0; i < 250; i++) {
            pods.create(i % 2 == 0 ? "default" : "other", pod(String.format("pod-%03d", i), Map.of()), user());
        }

        List<String> seen = new ArrayList<>();
        String token = "";
        long revision = 0;
        do {
            ListResult page = pods.list("", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 40, token, "", "", false, null, 0));
            pods.create("default", pod("late-" + seen.size(), Map.of()), user());
            revision = revision == 0 ? page.revision() : revision;
            assertThat(page.revision()).isEqualTo(revision);
            page.items().forEach(item -> seen.add(item.namespace() + "/" + item.name()));
            if (!page.continueToken().isEmpty()) {
                assertThat(page.remainingItemCount()).isEqualTo(250L - seen.size());
            }
            token = page.continueToken();
        } while (!token.isEmpty());

        assertThat(seen).hasSize(250).doesNotHaveDuplicates().isSorted();
    }

    @Test
    void watchDeliversEventsAfterRevisionAndRejectsTooOld() throws Exception {
        GenericStore pods = store(new GenericStrategy(TestResources.PODS, CLOCK).definition(), AdmissionChain.NONE);
        ObjectNode first = pods.create("default", pod("a", Map.of("app", "x")), user()).object();
        long afterFirst = Long.parseLong(ObjectMetadata.text(first, "resourceVersion"));

        WatchCache.Watcher watcher = pods.watch("default", new ListOptions(LabelSelector.parse("app=x"), FieldSelector.everything(), 0, "", Long.toString(afterFirst), "", false, null, 0));
        pods.create("default", pod("b", Map.of("app", "x")), user());
        pods.create("default", pod("c", Map.of("app", "y")), user());
        pods.update("default", "b", "", current -> {
            ((ObjectNode) current.get("metadata")).with("labels").put("app", "y");
            return current;
        }, user());
        pods.delete("default", "a", DeleteOptions.DEFAULT, user());

        assertThat(describe(watcher.poll(Duration.ofSeconds(5)))).isEqualTo("ADDED b");
        assertThat(describe(watcher.poll(Duration.ofSeconds(5)))).as("leaving the selector is a delete").isEqualTo("DELETED b");
        assertThat(describe(watcher.poll(Duration.ofSeconds(5)))).isEqualTo("DELETED a");
        watcher.close();

        for (int i = 0; i < 120; i++) {
            pods.create("default", pod("filler-" + i, Map.of()), user());
        }
        pods.list("default", ListOptions.EVERYTHING);
        assertThatThrownBy(() -> pods.watch("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 0, "", Long.toString(afterFirst), "", false, null, 0)))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(410);
                    assertThat(e.getMessage()).startsWith("too old resource version: " + afterFirst + " (");
                });
    }

    @Test
    void watchWithInitialEventsEndsThemWithBookmark() throws Exception {
        GenericStore pods = pods();
        pods.create("default", pod("a", Map.of()), user());

        WatchCache.Watcher watcher = pods.watch("default", new ListOptions(LabelSelector.everything(), FieldSelector.everything(), 0, "", "", "NotOlderThan", true, true, 0));

        assertThat(describe(watcher.poll(Duration.ofSeconds(5)))).isEqualTo("ADDED a");
        assertThat(watcher.poll(Duration.ofSeconds(5))).isInstanceOfSatisfying(WatchItem.Bookmark.class, bookmark -> assertThat(bookmark.initialEventsEnd()).isTrue());
        watcher.close();
    }

    @Test
    void strategyValidationErrorsAreInvalid() {
        GenericStrategy base = new GenericStrategy(TestResources.CONFIG_MAPS, CLOCK);
        ResourceStrategy strict = new DelegatingStrategy(base) {
            @Override
            public FieldErrors validate(ObjectNode object) {
                return new FieldErrors().add(FieldError.required("data", "")).add(FieldError.invalid("metadata.name", "x", "bad"));
            }
        };
        GenericStore configMaps = store(ResourceDefinition.of(strict), AdmissionChain.NONE);
        ObjectNode body = Json.object();
        body.putObject("metadata").put("name", "x");

        assertThatThrownBy(() -> configMaps.create("default", body, user()))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).isEqualTo("ConfigMap \"x\" is invalid: [data: Required value, metadata.name: Invalid value: \"x\": bad]");
                });
    }

    @Test
    void versionConversionStoresInTheOtherResourcesStorage() {
        io.k4j.api.resource.ResourceType coreEvents = new io.k4j.api.resource.ResourceType(new io.k4j.api.resource.GroupVersionKind("", "v1", "Event"),
                "events", "event", List.of("ev"), List.of(), true, TestResources.ALL_VERBS, java.util.Set.of(), Object.class);
        io.k4j.api.resource.ResourceType servedEvents = new io.k4j.api.resource.ResourceType(new io.k4j.api.resource.GroupVersionKind("events.k8s.io", "v1", "Event"),
                "events", "event", List.of("ev"), List.of(), true, TestResources.ALL_VERBS, java.util.Set.of(), Object.class);
        VersionConversion conversion = new VersionConversion() {
            @Override
            public io.k4j.api.resource.GroupVersionResource storageResource() {
                return coreEvents.gvr();
            }

            @Override
            public ObjectNode toStorage(ObjectNode served) {
                ObjectNode stored = served.deepCopy();
                stored.put("apiVersion", "v1");
                stored.set("message", stored.remove("note"));
                return stored;
            }

            @Override
            public ObjectNode fromStorage(ObjectNode stored) {
                ObjectNode served = stored.deepCopy();
                served.put("apiVersion", "events.k8s.io/v1");
                served.set("note", served.remove("message"));
                return served;
            }
        };
        GenericStore core = store(new GenericStrategy(coreEvents, CLOCK).definition(), AdmissionChain.NONE);
        GenericStore served = store(new ResourceDefinition(new GenericStrategy(servedEvents, CLOCK), Map.of(), List.of(), java.util.Optional.of(conversion)), AdmissionChain.NONE);
        ObjectNode event = Json.object().put("apiVersion", "events.k8s.io/v1").put("kind", "Event").put("note", "pulled");
        event.putObject("metadata").put("name", "e1");

        served.create("default", event, user());

        ObjectNode stored = (ObjectNode) Json.read(storage.get("/registry/events/default/e1").value());
        assertThat(stored.path("apiVersion").asText()).isEqualTo("v1");
        assertThat(stored.path("message").asText()).isEqualTo("pulled");
        assertThat(served.get("default", "e1").path("note").asText()).isEqualTo("pulled");
        assertThat(core.get("default", "e1").path("message").asText()).isEqualTo("pulled");
    }

    private static String describe(WatchItem item) {
        if (item instanceof WatchItem.Event event) {
            return event.type() + " " + event.object().name();
        }
        return String.valueOf(item);
    }

    private static class DelegatingStrategy implements ResourceStrategy {
        private final ResourceStrategy delegate;

        DelegatingStrategy(ResourceStrategy delegate) {
            this.delegate = delegate;
        }

        @Override
        public io.k4j.api.resource.ResourceType type() {
            return delegate.type();
        }

        @Override
        public void prepareForCreate(ObjectNode object) {
            delegate.prepareForCreate(object);
        }

        @Override
        public void prepareForUpdate(ObjectNode newObject, ObjectNode oldObject) {
            delegate.prepareForUpdate(newObject, oldObject);
        }

        @Override
        public FieldErrors validate(ObjectNode object) {
            return delegate.validate(object);
        }

        @Override
        public FieldErrors validateUpdate(ObjectNode newObject, ObjectNode oldObject) {
            return delegate.validateUpdate(newObject, oldObject);
        }

        @Override
        public List<TableColumn> tableColumns() {
            return delegate.tableColumns();
        }

        @Override
        public List<Object> tableRow(ObjectNode object) {
            return delegate.tableRow(object);
        }
    }
}
