package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;

/**
 * Who writes and how: the user admission sees, whether nothing may be persisted, whether admission runs
 * (in-process writes through {@link ObjectStore} skip it), and how the write's field ownership is recorded in
 * {@code metadata.managedFields}.
 */
public record OperationContext(UserInfo user, boolean dryRun, boolean admit, FieldOwnership fieldOwnership) {
    /** The identity of in-process writes. */
    public static final UserInfo SYSTEM_USER = UserInfo.of("system:apiserver", List.of(UserInfo.MASTERS_GROUP, UserInfo.AUTHENTICATED_GROUP));
    public static final OperationContext IN_PROCESS = new OperationContext(SYSTEM_USER, false, false);

    public OperationContext {
        requireNonNull(user, "user is null");
        requireNonNull(fieldOwnership, "fieldOwnership is null");
    }

    /** A write whose field ownership is not recorded (managed fields stay as the written object has them). */
    public OperationContext(UserInfo user, boolean dryRun, boolean admit) {
        this(user, dryRun, admit, FieldOwnership.UNTRACKED);
    }

    public OperationContext withFieldOwnership(FieldOwnership ownership) {
        return new OperationContext(user, dryRun, admit, ownership);
    }

    /** How a write records who owns the fields it sets, as upstream's field manager. */
    public sealed interface FieldOwnership {
        /** In-process writes: the object's managed fields are left as the write has them. */
        FieldOwnership UNTRACKED = new Untracked();

        /** Not recorded. */
        record Untracked() implements FieldOwnership {}

        /** A create, update or patch: the store records the fields it changes as owned by {@code manager}. */
        record Updated(String manager) implements FieldOwnership {
            public Updated {
                requireNonNull(manager, "manager is null");
            }
        }

        /** A server-side apply: the written object already carries its managed fields, computed while applying. */
        record Applied(String manager) implements FieldOwnership {
            public Applied {
                requireNonNull(manager, "manager is null");
            }
        }
    }
}
