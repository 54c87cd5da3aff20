package io.k4j.controllerkit.informers;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * <p>Events are matched by their object's text, not their type: a pod's binding reaches the node simulator, which watches
 * bound pods only, as ADDED, and the other components as MODIFIED, and all of them share one decoding of it.
 *
 * <p>A direct-mapped table: each object text has one slot, chosen by the hash of its start, holding the last event
 * decoded there and its object. A component that falls more than about {@code slots} events behind another decodes its
 * own copy, which costs what it did before and changes nothing else. Thread-safe.
 */
public final class SharedEventDecoding {
    /** How the apiserver starts each event it writes; the object follows the type. */
    private static final String TYPE_FIELD = "{\"type\":\"";
    /** How much of an object chooses its slot: its kind, name, namespace, uid and resourceVersion come first. */
    private static final int SLOT_KEY_LENGTH = 256;

    private final AtomicReferenceArray<Decoded> slots;

    /** A decoded event: its text, where its object starts in it (after the type), and the object. */
    private record Decoded(String text, int objectStart, KubernetesResource object) {
        boolean sameObject(String otherText, int otherObjectStart) {
            if (otherText == text) {
                // The server's in-process watchers of a change are handed one string.
                return true;
            }
            int length = text.length() - objectStart;
            return otherText.length() - otherObjectStart == length && text.regionMatches(objectStart, otherText, otherObjectStart, length);
        }
    }

    /** @param slots the events remembered, a power of two */
    public SharedEventDecoding(int slots) {
        if (slots <= 0 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, not " + slots);
        }
        this.slots = new AtomicReferenceArray<>(slots);
    }

    /**
     * The event with this text: a new event of the text's type around the object decoded last for the same object
     * text, or {@code decode}'s (remembered unless null, or when the text is not in the apiserver's form). Each caller
     * gets its own event, which fabric8 may change; only the object is shared.
     */
    WatchEvent event(String text, Function<String, WatchEvent> decode) {
        requireNonNull(text, "text is null");
        int typeEnd = text.startsWith(TYPE_FIELD) ? text.indexOf('"', TYPE_FIELD.length()) : -1;
        if (typeEnd < 0) {
            return decode.apply(text);
        }
        int objectStart = typeEnd + 1;
        int hash = text.substring(objectStart, Math.min(text.length(), objectStart + SLOT_KEY_LENGTH)).hashCode();
        int slot = (hash ^ (hash >>> 16)) & (slots.length() - 1);
        Decoded last = slots.get(slot);
        if (last != null && last.sameObject(text, objectStart)) {
            return new WatchEvent(last.object(), text.substring(TYPE_FIELD.length(), typeEnd));
        }
        WatchEvent event = decode.apply(text);
        if (event != null) {
            slots.set(slot, new Decoded(text, objectStart, (KubernetesResource) event.getObject()));
        }
        return event;
    }
}
