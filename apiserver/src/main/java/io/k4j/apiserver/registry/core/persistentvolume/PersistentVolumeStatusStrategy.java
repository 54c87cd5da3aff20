package io.k4j.apiserver.registry.core.persistentvolume;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.core.Updates;
import io.k4j.apiserver.registry.generic.SubresourceStrategy;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The rules of {@code persistentvolumes/status}: the spec is kept, and a phase change records its time unless the
 * writer set one. Thread-safe.
 */
public final class PersistentVolumeStatusStrategy extends SubresourceStrategy {
    private static final List<String> PHASES = List.of("Available", "Bound", "Failed", "Pending", "Released");

    private final InstantSource clock;

    public PersistentVolumeStatusStrategy(PersistentVolumeStrategy volumeStrategy, InstantSource clock) {
        super(volumeStrategy);
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public void prepareForUpdate(ObjectNode newVolume, ObjectNode oldVolume) {
        Updates.copyField(oldVolume, newVolume, "spec");
        String newPhase = Trees.text(newVolume, "status", "phase");
        String newTime = Trees.text(newVolume, "status", "lastPhaseTransitionTime");
        if (!newPhase.equals(Trees.text(oldVolume, "status", "phase"))
                && (newTime.isEmpty() || newTime.equals(Trees.text(oldVolume, "status", "lastPhaseTransitionTime")))) {
            Trees.object(newVolume, "status").put("lastPhaseTransitionTime", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
        }
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newVolume, ObjectNode oldVolume) {
        FieldErrors errors = new FieldErrors();
        String phase = Trees.text(newVolume, "status", "phase");
        if (!phase.isEmpty() && !PHASES.contains(phase)) {
            errors.add(FieldError.notSupported("status.phase", phase, PHASES));
        }
        return errors;
    }
}
