package io.k4j.controllerkit.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.k4j.controllerkit.events.EventRecorder;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps recorded events as {@code "<type> <reason> <message>"} lines, like upstream's {@code FakeRecorder}, and
 * events about a part of an object also as {@code "<fieldPath> <type> <reason> <message>"} lines. Thread-safe.
 */
public final class FakeEventRecorder implements EventRecorder {
    private final List<String> events = new ArrayList<>();
    private final List<String> fieldPathEvents = new ArrayList<>();

    @Override
    public synchronized void event(HasMetadata object, String type, String reason, String message) {
        events.add(type + " " + reason + " " + message);
    }

    @Override
    public synchronized void event(HasMetadata object, String fieldPath, String type, String reason, String message) {
        events.add(type + " " + reason + " " + message);
        fieldPathEvents.add(fieldPath + " " + type + " " + reason + " " + message);
    }

    public synchronized List<String> events() {
        return List.copyOf(events);
    }

    /** The events recorded with a field path, each prefixed with it, e.g. {@code "spec.containers{c1} Normal Started …"}. */
    public synchronized List<String> fieldPathEvents() {
        return List.copyOf(fieldPathEvents);
    }
}
