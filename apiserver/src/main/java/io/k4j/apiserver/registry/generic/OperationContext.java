package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import io.k4j.apiserver.authentication.UserInfo;
import java.util.List;

/**
 * Who writes and how: the user admission sees, whether nothing may be persisted, and whether admission runs
 * (in-process writes through {@link ObjectStore} skip it).
 */
public record OperationContext(UserInfo user, boolean dryRun, boolean admit) {
    /** The identity of in-process writes. */
    public static final UserInfo SYSTEM_USER = UserInfo.of("system:apiserver", List.of(UserInfo.MASTERS_GROUP, UserInfo.AUTHENTICATED_GROUP));
    public static final OperationContext IN_PROCESS = new OperationContext(SYSTEM_USER, false, false);

    public OperationContext {
        requireNonNull(user, "user is null");
    }
}
