package io.k4j.controllerkit.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.k4j.controllerkit.events.EventRecorder;
import java.util.ArrayList;
import java.util.List;

/** Keeps recorded events as {@code "<type> <reason> <message>"} lines, like upstream's {@code FakeRecorder}. Thread-safe. */
public final class FakeEventRecorder implements EventRecorder {
    private final List<String> events = new ArrayList<>();

    @Override
    public synchronized void event(HasMetadata object, String type, String reason, String message) {
        events.add(type + " " + reason + " " + message);
    }

    public synchronized List<String> events() {
        return List.copyOf(events);
    }
}
