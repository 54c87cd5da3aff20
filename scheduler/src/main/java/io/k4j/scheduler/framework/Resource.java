package io.k4j.scheduler.framework;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.HashMap;
import java.util.Map;

/**
 * An amount of compute resources in the scheduler's units: milli-CPU, bytes of memory and ephemeral storage, a pod
 * count, and integer amounts of scalar resources (extended resources, hugepages). Mutable; not thread-safe. Copies
 * kept in a snapshot are never changed.
 */
public final class Resource {
    public long milliCpu;
    public long memory;
    public long ephemeralStorage;
    public long allowedPodNumber;
    private Map<String, Long> scalarResources;

    public Resource() {}

    public Resource(long milliCpu, long memory) {
        this.milliCpu = milliCpu;
        this.memory = memory;
    }

    /** The resources of a {@code requests}, {@code allocatable} or {@code overhead} map. */
    public static Resource of(Map<String, Quantity> resources) {
        Resource resource = new Resource();
        resource.add(resources);
        return resource;
    }

    public void add(Map<String, Quantity> resources) {
        if (resources == null) {
            return;
        }
        for (Map.Entry<String, Quantity> entry : resources.entrySet()) {
            String name = entry.getKey();
            switch (name) {
                case "cpu" -> milliCpu += milliValue(entry.getValue());
                case "memory" -> memory += value(entry.getValue());
                case "pods" -> allowedPodNumber += value(entry.getValue());
                case "ephemeral-storage" -> ephemeralStorage += value(entry.getValue());
                default -> {
                    if (isScalarResourceName(name)) {
                        addScalar(name, value(entry.getValue()));
                    }
                }
            }
        }
    }

    public void add(Resource other) {
        milliCpu += other.milliCpu;
        memory += other.memory;
        ephemeralStorage += other.ephemeralStorage;
        allowedPodNumber += other.allowedPodNumber;
        if (other.scalarResources != null) {
            other.scalarResources.forEach(this::addScalar);
        }
    }

    public void subtract(Resource other) {
        milliCpu -= other.milliCpu;
        memory -= other.memory;
        ephemeralStorage -= other.ephemeralStorage;
        allowedPodNumber -= other.allowedPodNumber;
        if (other.scalarResources != null) {
            other.scalarResources.forEach((name, amount) -> addScalar(name, -amount));
        }
    }

    /** Raises each resource to at least the other's amount (how init containers count). */
    public void setMax(Resource other) {
        milliCpu = Math.max(milliCpu, other.milliCpu);
        memory = Math.max(memory, other.memory);
        ephemeralStorage = Math.max(ephemeralStorage, other.ephemeralStorage);
        if (other.scalarResources != null) {
            other.scalarResources.forEach((name, amount) -> setScalar(name, Math.max(scalar(name), amount)));
        }
    }

    public long scalar(String name) {
        if (scalarResources == null) {
            return 0;
        }
        Long amount = scalarResources.get(name);
        return amount == null ? 0 : amount;
    }

    public void addScalar(String name, long amount) {
        setScalar(name, scalar(name) + amount);
    }

    public void setScalar(String name, long amount) {
        if (scalarResources == null) {
            scalarResources = new HashMap<>(4);
        }
        scalarResources.put(name, amount);
    }

    /** The scalar resources, never null; do not modify. */
    public Map<String, Long> scalarResources() {
        return scalarResources == null ? Map.of() : scalarResources;
    }

    /** The amount of a resource by its API name, in the scheduler's unit (milli-CPU for cpu). */
    public long get(String name) {
        return switch (name) {
            case "cpu" -> milliCpu;
            case "memory" -> memory;
            case "ephemeral-storage" -> ephemeralStorage;
            case "pods" -> allowedPodNumber;
            default -> scalar(name);
        };
    }

    public boolean isZero() {
        return milliCpu == 0 && memory == 0 && ephemeralStorage == 0 && (scalarResources == null || scalarResources.values().stream().allMatch(value -> value == 0));
    }

    public Resource copy() {
        Resource copy = new Resource();
        copy.milliCpu = milliCpu;
        copy.memory = memory;
        copy.ephemeralStorage = ephemeralStorage;
        copy.allowedPodNumber = allowedPodNumber;
        if (scalarResources != null) {
            copy.scalarResources = new HashMap<>(scalarResources);
        }
        return copy;
    }

    /**
     * Whether the scheduler accounts the resource as a scalar: extended resources (a domain-qualified name outside
     * kubernetes.io), hugepages and attachable volumes, as upstream.
     */
    public static boolean isScalarResourceName(String name) {
        if (name.startsWith("hugepages-") || name.startsWith("attachable-volumes-")) {
            return true;
        }
        int slash = name.indexOf('/');
        if (slash < 0) {
            return false;
        }
        String domain = name.substring(0, slash);
        if (domain.equals("kubernetes.io") || domain.endsWith(".kubernetes.io")) {
            return false;
        }
        return !name.startsWith("requests.");
    }

    /** A quantity in milli-units, rounded up as upstream's {@code MilliValue}. */
    public static long milliValue(Quantity quantity) {
        return parse(quantity).milliValue();
    }

    /** A quantity in units, rounded up as upstream's {@code Value}. */
    public static long value(Quantity quantity) {
        return parse(quantity).value();
    }

    private static io.k4j.api.quantity.Quantity parse(Quantity quantity) {
        String format = quantity.getFormat();
        return io.k4j.api.quantity.Quantity.parse(quantity.getAmount() + (format == null ? "" : format));
    }

    @Override
    public String toString() {
        return "Resource[milliCpu=" + milliCpu + ", memory=" + memory + ", ephemeralStorage=" + ephemeralStorage
                + ", pods=" + allowedPodNumber + (scalarResources == null ? "" : ", scalar=" + scalarResources) + "]";
    }
}
