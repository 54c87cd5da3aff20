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

    default void eventf(HasMetadata object, String type, String reason, String format, Object... arguments) {
        event(object, type, reason, String.format(format, arguments));
    }
}
