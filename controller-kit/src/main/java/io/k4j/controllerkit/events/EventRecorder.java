package io.k4j.controllerkit.events;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Records Events about objects, as client-go's {@code record.EventRecorder}: what {@code kubectl describe} shows
 * under "Events". Never blocks and never fails the caller: events are best effort, like upstream's.
 * Implementations are thread-safe.
 */
public interface EventRecorder {
    String NORMAL = "Normal";
    String WARNING = "Warning";

    /**
     * Records that {@code reason} happened to {@code object}.
     *
     * @param type {@link #NORMAL} or {@link #WARNING}
     * @param reason a short UpperCamelCase reason, e.g. {@code SuccessfulCreate}
     * @param message a human-readable sentence
     */
    void event(HasMetadata object, String type, String reason, String message);

    /**
     * Records that {@code reason} happened to a part of {@code object}, e.g. one container of a pod: the Event's
     * {@code involvedObject.fieldPath} is {@code fieldPath} (upstream's {@code spec.containers{name}}), which
     * {@code kubectl describe} shows in its "From"/"Message" lines and by which repeats are told apart. Recorders that
     * keep no field path record it as {@link #event(HasMetadata, String, String, String)}.
     */
    default void event(HasMetadata object, String fieldPath, String type, String reason, String message) {
        event(object, type, reason, message);
    }

    default void eventf(HasMetadata object, String type, String reason, String format, Object... arguments) {
        event(object, type, reason, String.format(format, arguments));
    }
}
