package io.k4j.apiserver.registry.core;

import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.api.validation.NameValidation;
import java.util.List;
import java.util.Set;

/**
 * Upstream's rules for resource names ({@code cpu}, {@code requests.memory}, {@code example.com/gpu}) in limit
 * ranges and quotas, with upstream's messages. Stateless and thread-safe.
 */
public final class ResourceNames {
    private static final Set<String> CONTAINER_RESOURCES = Set.of("cpu", "memory", "ephemeral-storage");
    /** Upstream's {@code standardResources}: the unprefixed names that need no domain. */
    private static final Set<String> STANDARD_RESOURCES = Set.of("cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
            "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services", "replicationcontrollers",
            "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
            "services.loadbalancers");
    /** Upstream's {@code standardQuotaResources}: like the standard ones without plain {@code storage}. */
    private static final Set<String> STANDARD_QUOTA_RESOURCES = Set.of("cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
            "requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas",
            "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers");
    /** Object counts, which quotas only accept as whole numbers. */
    private static final Set<String> INTEGER_RESOURCES = Set.of("pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
            "persistentvolumeclaims", "services.nodeports", "services.loadbalancers");

    private ResourceNames() {}

    /** Upstream's {@code validateResourceName}: a qualified name; without a domain, one of the standard resources. */
    public static FieldErrors validateResourceName(String name, String path) {
        FieldErrors errors = new FieldErrors();
        List<String> problems = NameValidation.isQualifiedName(name);
        problems.forEach(message -> errors.add(FieldError.invalid(path, name, message)));
        if (problems.isEmpty() && !name.contains("/") && !STANDARD_RESOURCES.contains(name) && !isQuotaHugePages(name)) {
            errors.add(FieldError.invalid(path, name, "must be a standard resource type or fully qualified"));
        }
        return errors;
    }

    /** Upstream's {@code validateContainerResourceName}: cpu, memory, ephemeral storage, huge pages or an extended resource. */
    public static FieldErrors validateContainerResourceName(String name, String path) {
        FieldErrors errors = validateResourceName(name, path);
        if (!name.contains("/")) {
            if (!CONTAINER_RESOURCES.contains(name) && !name.startsWith("hugepages-")) {
                errors.add(FieldError.invalid(path, name, "must be a standard resource for containers"));
            }
        } else if (!isNative(name) && !isExtended(name)) {
            errors.add(FieldError.invalid(path, name, "doesn't follow extended resource name standard"));
        }
        return errors;
    }

    /** Upstream's {@code ValidateResourceQuotaResourceName}. */
    public static FieldErrors validateQuotaResourceName(String name, String path) {
        FieldErrors errors = validateResourceName(name, path);
        if (!name.contains("/") && !isStandardQuotaResource(name)) {
            errors.add(FieldError.invalid(path, name, "must be a standard resource for quota"));
        }
        return errors;
    }

    /** Upstream's {@code IsStandardQuotaResourceName}. */
    public static boolean isStandardQuotaResource(String name) {
        return STANDARD_QUOTA_RESOURCES.contains(name) || isQuotaHugePages(name);
    }

    /** Upstream's {@code IsIntegerResourceName}: object counts and extended resources. */
    public static boolean isInteger(String name) {
        return INTEGER_RESOURCES.contains(name) || isExtended(name);
    }

    /** Upstream's {@code IsOverCommitAllowed}: native resources other than huge pages. */
    public static boolean isOvercommitAllowed(String name) {
        return isNative(name) && !name.startsWith("hugepages-");
    }

    /** Native resources have no domain or a kubernetes.io one. */
    private static boolean isNative(String name) {
        return !name.contains("/") || name.contains("kubernetes.io/");
    }

    /** Upstream's {@code IsExtendedResourceName}: a foreign domain, not a {@code requests.} quota name. */
    private static boolean isExtended(String name) {
        return !isNative(name) && !name.startsWith("requests.") && NameValidation.isQualifiedName("requests." + name).isEmpty();
    }

    private static boolean isQuotaHugePages(String name) {
        return name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
    }
}
