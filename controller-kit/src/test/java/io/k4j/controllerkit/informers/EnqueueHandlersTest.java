package io.k4j.controllerkit.informers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnqueueHandlersTest {
    private final List<String> enqueued = new ArrayList<>();

    @Test
    void onEveryChangeEnqueuesAddsTheNewObjectOfUpdatesAndDeletes() {
        ResourceEventHandler<String> handler = EnqueueHandlers.onEveryChange(enqueued::add);

        handler.onAdd("added");
        handler.onUpdate("old", "new");
        handler.onDelete("deleted", false);
        handler.onDelete("deleted-unknown", true);

        assertThat(enqueued).containsExactly("added", "new", "deleted", "deleted-unknown");
    }

    @Test
    void onAddOrUpdateIgnoresDeletes() {
        ResourceEventHandler<String> handler = EnqueueHandlers.onAddOrUpdate(enqueued::add);

        handler.onAdd("added");
        handler.onUpdate("old", "new");
        handler.onDelete("deleted", false);

        assertThat(enqueued).containsExactly("added", "new");
    }

    @Test
    void ofHandsEachEventToItsFunction() {
        ResourceEventHandler<String> handler = EnqueueHandlers.of(object -> enqueued.add("add " + object),
                (oldObject, newObject) -> enqueued.add("update " + oldObject + " " + newObject), object -> enqueued.add("delete " + object));

        handler.onAdd("a");
        handler.onUpdate("a", "b");
        handler.onDelete("b", true);

        assertThat(enqueued).containsExactly("add a", "update a b", "delete b");
    }
}
