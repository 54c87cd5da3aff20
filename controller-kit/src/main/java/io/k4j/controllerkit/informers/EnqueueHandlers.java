package io.k4j.controllerkit.informers;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The informer handlers controllers need: they only hand objects to the controller's enqueue functions, as upstream's
 * do. Thread-safety is that of the functions.
 */
public final class EnqueueHandlers {
    private EnqueueHandlers() {}

    /** Enqueues on add and on every update (the new object); deletions are ignored. */
    public static <T> ResourceEventHandler<T> onAddOrUpdate(Consumer<T> enqueue) {
        return of(enqueue, (oldObject, newObject) -> enqueue.accept(newObject), object -> {});
    }

    /** Enqueues on add, on every update (the new object) and on delete. */
    public static <T> ResourceEventHandler<T> onEveryChange(Consumer<T> enqueue) {
        return of(enqueue, (oldObject, newObject) -> enqueue.accept(newObject), enqueue);
    }

    /** Hands each kind of event to its own function: for controllers whose reaction differs per event. */
    public static <T> ResourceEventHandler<T> of(Consumer<T> added, BiConsumer<T, T> updated, Consumer<T> deleted) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                added.accept(object);
            }

            @Override
            public void onUpdate(T oldObject, T newObject) {
                updated.accept(oldObject, newObject);
            }

            @Override
            public void onDelete(T object, boolean deletedFinalStateUnknown) {
                deleted.accept(object);
            }
        };
    }
}
