package io.k4j.controllerkit.informers;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The objects of recently decoded watch events, shared by the clients of the components that run in one process. The
 * scheduler and the controller manager both watch every pod, and the apiserver sends both the same event text; upstream
 * runs them in separate processes, each decoding and caching its own copy. Here the second decoding of an event's
 * text takes the first one's object, so each change is decoded once and the informers' caches hold one copy of it.
 *
 * <p>Objects from informers are shared and read-only, as with upstream's shared informers, where every controller of
 * a process sees the same cached object: a component that changes one copies it first (fabric8's builders do).
 *
 * <p>A direct-mapped table: each text has one slot, chosen by its hash, holding the last text decoded there and its
 * object. A component that falls more than about {@code slots} events behind another decodes its own copy, which
 * costs what it did before and changes nothing else. Thread-safe.
 */
public final class SharedEventDecoding {
    private final AtomicReferenceArray<Decoded> slots;
    private final LongAdder shared = new LongAdder();
    private final LongAdder decoded = new LongAdder();

    private record Decoded(String text, String type, KubernetesResource object) {}

    /** @param slots the events remembered, a power of two */
    public SharedEventDecoding(int slots) {
        if (slots <= 0 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, not " + slots);
        }
        this.slots = new AtomicReferenceArray<>(slots);
    }

    /**
     * The event with this text: a new event around the object decoded last for the same text, or {@code decode}'s
     * (remembered unless null). Each caller gets its own event, which fabric8 may change; only the object is shared.
     */
    WatchEvent event(String text, Function<String, WatchEvent> decode) {
        requireNonNull(text, "text is null");
        int hash = text.hashCode();
        int slot = (hash ^ (hash >>> 16)) & (slots.length() - 1);
        Decoded last = slots.get(slot);
        if (last != null && last.text().equals(text)) {
            shared.increment();
            return new WatchEvent(last.object(), last.type());
        }
        WatchEvent event = decode.apply(text);
        decoded.increment();
        if (event != null) {
            slots.set(slot, new Decoded(text, event.getType(), (KubernetesResource) event.getObject()));
        }
        return event;
    }

    /** Events that took an object decoded before. */
    public long sharedCount() {
        return shared.sum();
    }

    /** Events decoded. */
    public long decodedCount() {
        return decoded.sum();
    }
}
