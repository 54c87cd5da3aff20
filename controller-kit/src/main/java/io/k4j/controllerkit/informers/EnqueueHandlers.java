package io.k4j.controllerkit.informers;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** The informer handlers most controllers need: they only hand objects to an enqueue function, as upstream's do. */
public final class EnqueueHandlers {
    private EnqueueHandlers() {}

    /** Enqueues on add and on every update (the new object); deletions are ignored. */
    public static <T> ResourceEventHandler<T> onAddOrUpdate(Consumer<T> enqueue) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                enqueue.accept(object);
            }

            @Override
            public void onUpdate(T oldObject, T newObject) {
                enqueue.accept(newObject);
            }

            @Override
            public void onDelete(T object, boolean deletedFinalStateUnknown) {}
        };
    }

    /** Enqueues on add, on every update (the new object) and on delete. */
    public static <T> ResourceEventHandler<T> onEveryChange(Consumer<T> enqueue) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                enqueue.accept(object);
            }

            @Override
            public void onUpdate(T oldObject, T newObject) {
                enqueue.accept(newObject);
            }

            @Override
            public void onDelete(T object, boolean deletedFinalStateUnknown) {
                enqueue.accept(object);
            }
        };
    }
}
