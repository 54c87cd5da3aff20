package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A pod with what the scheduler derives from it once instead of in every cycle: its resource requests (as
 * upstream's {@code resource.PodRequests}, with init containers, sidecars and overhead), the non-zero requests used for
 * scoring, its host ports and its parsed affinity terms. Immutable and thread-safe; the pod itself is shared with the
 * informer cache and must not be modified.
 */
public final class PodInfo {
    /** The CPU request scoring assumes for a container that requests none (upstream's DefaultMilliCPURequest). */
    public static final long DEFAULT_MILLI_CPU_REQUEST = 100;
    /** The memory request scoring assumes for a container that requests none (upstream's DefaultMemoryRequest). */
    public static final long DEFAULT_MEMORY_REQUEST = 200L * 1024 * 1024;

    private final Pod pod;
    private final String uid;
    private final String namespace;
    private final String name;
    private final Map<String, String> labels;
    private final int priority;
    private final Resource requests;
    private final Resource nonZeroRequests;
    private final List<HostPort> hostPorts;
    private final List<AffinityTerm> requiredAffinityTerms;
    private final List<AffinityTerm> requiredAntiAffinityTerms;
    private final List<AffinityTerm> preferredAffinityTerms;
    private final List<AffinityTerm> preferredAntiAffinityTerms;
    private final String nodeName;
    private final boolean terminating;

    public PodInfo(Pod pod) {
        this.pod = requireNonNull(pod, "pod is null");
        this.nodeName = pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
        this.terminating = pod.getMetadata().getDeletionTimestamp() != null;
        this.uid = pod.getMetadata().getUid() == null ? pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() : pod.getMetadata().getUid();
        this.namespace = pod.getMetadata().getNamespace() == null ? "" : pod.getMetadata().getNamespace();
        this.name = pod.getMetadata().getName();
        this.labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        this.priority = pod.getSpec().getPriority() == null ? 0 : pod.getSpec().getPriority();
        this.requests = computeRequests(pod, false);
        this.nonZeroRequests = computeRequests(pod, true);
        this.hostPorts = computeHostPorts(pod);
        Affinity affinity = pod.getSpec().getAffinity();
        List<AffinityTerm> requiredAffinity = List.of();
        List<AffinityTerm> requiredAnti = List.of();
        List<AffinityTerm> preferredAffinity = List.of();
        List<AffinityTerm> preferredAnti = List.of();
        if (affinity != null && affinity.getPodAffinity() != null) {
            requiredAffinity = terms(affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
            preferredAffinity = weightedTerms(affinity.getPodAffinity().getPreferredDuringSchedulingIgnoredDuringExecution());
        }
        if (affinity != null && affinity.getPodAntiAffinity() != null) {
            requiredAnti = terms(affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution());
            preferredAnti = weightedTerms(affinity.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution());
        }
        this.requiredAffinityTerms = requiredAffinity;
        this.requiredAntiAffinityTerms = requiredAnti;
        this.preferredAffinityTerms = preferredAffinity;
        this.preferredAntiAffinityTerms = preferredAnti;
    }

    private List<AffinityTerm> terms(List<PodAffinityTerm> terms) {
        if (terms == null || terms.isEmpty()) {
            return List.of();
        }
        List<AffinityTerm> result = new ArrayList<>(terms.size());
        for (PodAffinityTerm term : terms) {
            result.add(AffinityTerm.of(namespace, term, 0));
        }
        return List.copyOf(result);
    }

    private List<AffinityTerm> weightedTerms(List<WeightedPodAffinityTerm> terms) {
        if (terms == null || terms.isEmpty()) {
            return List.of();
        }
        List<AffinityTerm> result = new ArrayList<>(terms.size());
        for (WeightedPodAffinityTerm term : terms) {
            if (term.getPodAffinityTerm() != null) {
                result.add(AffinityTerm.of(namespace, term.getPodAffinityTerm(), term.getWeight() == null ? 0 : term.getWeight()));
            }
        }
        return List.copyOf(result);
    }

    /**
     * The pod's effective requests: the sum of its containers and sidecars, raised to what any init container needs
     * while it runs, plus the pod overhead. With {@code nonZero}, a container without a CPU or memory request counts
     * the scheduler's defaults, as upstream does for scoring.
     */
    static Resource computeRequests(Pod pod, boolean nonZero) {
        Resource containers = new Resource();
        for (Container container : listOrEmpty(pod.getSpec().getContainers())) {
            containers.add(containerRequests(container, nonZero));
        }
        Resource sidecars = new Resource();
        Resource initMaximum = new Resource();
        for (Container container : listOrEmpty(pod.getSpec().getInitContainers())) {
            Resource request = containerRequests(container, nonZero);
            Resource whileRunning;
            if ("Always".equals(container.getRestartPolicy())) {
                sidecars.add(request);
                whileRunning = sidecars.copy();
            } else {
                whileRunning = request.copy();
                whileRunning.add(sidecars);
            }
            initMaximum.setMax(whileRunning);
        }
        containers.add(sidecars);
        containers.setMax(initMaximum);
        if (pod.getSpec().getOverhead() != null) {
            containers.add(pod.getSpec().getOverhead());
        }
        return containers;
    }

    private static Resource containerRequests(Container container, boolean nonZero) {
        Resource resource = new Resource();
        Map<String, io.fabric8.kubernetes.api.model.Quantity> requests = container.getResources() == null ? null : container.getResources().getRequests();
        resource.add(requests);
        if (nonZero) {
            if (requests == null || !requests.containsKey("cpu")) {
                resource.milliCpu = DEFAULT_MILLI_CPU_REQUEST;
            }
            if (requests == null || !requests.containsKey("memory")) {
                resource.memory = DEFAULT_MEMORY_REQUEST;
            }
        }
        return resource;
    }

    private static List<HostPort> computeHostPorts(Pod pod) {
        List<HostPort> ports = null;
        for (Container container : listOrEmpty(pod.getSpec().getContainers())) {
            for (ContainerPort port : listOrEmpty(container.getPorts())) {
                if (port.getHostPort() != null && port.getHostPort() > 0) {
                    if (ports == null) {
                        ports = new ArrayList<>(2);
                    }
                    ports.add(new HostPort(port.getHostIP() == null ? "" : port.getHostIP(), port.getProtocol() == null ? "TCP" : port.getProtocol(), port.getHostPort()));
                }
            }
        }
        for (Container container : listOrEmpty(pod.getSpec().getInitContainers())) {
            if (!"Always".equals(container.getRestartPolicy())) {
                continue;
            }
            for (ContainerPort port : listOrEmpty(container.getPorts())) {
                if (port.getHostPort() != null && port.getHostPort() > 0) {
                    if (ports == null) {
                        ports = new ArrayList<>(2);
                    }
                    ports.add(new HostPort(port.getHostIP() == null ? "" : port.getHostIP(), port.getProtocol() == null ? "TCP" : port.getProtocol(), port.getHostPort()));
                }
            }
        }
        return ports == null ? List.of() : List.copyOf(ports);
    }

    private static <T> List<T> listOrEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    public Pod pod() {
        return pod;
    }

    /** The pod's UID, the key of the scheduler's cache and queue. */
    public String uid() {
        return uid;
    }

    public String namespace() {
        return namespace;
    }

    public String name() {
        return name;
    }

    /** {@code namespace/name}, as upstream logs and messages print a pod. */
    public String key() {
        return namespace + "/" + name;
    }

    public Map<String, String> labels() {
        return labels;
    }

    public int priority() {
        return priority;
    }

    /** The node the pod is bound or assumed to (which may differ from {@code pod().getSpec()}), empty when none. */
    public String nodeName() {
        return nodeName;
    }

    public String schedulerName() {
        String schedulerName = pod.getSpec().getSchedulerName();
        return schedulerName == null || schedulerName.isEmpty() ? "default-scheduler" : schedulerName;
    }

    /** The requests the NodeResourcesFit filter checks; do not modify. */
    public Resource requests() {
        return requests;
    }

    /** The requests scoring uses, with defaults for containers without requests; do not modify. */
    public Resource nonZeroRequests() {
        return nonZeroRequests;
    }

    public List<HostPort> hostPorts() {
        return hostPorts;
    }

    public List<AffinityTerm> requiredAffinityTerms() {
        return requiredAffinityTerms;
    }

    public List<AffinityTerm> requiredAntiAffinityTerms() {
        return requiredAntiAffinityTerms;
    }

    public List<AffinityTerm> preferredAffinityTerms() {
        return preferredAffinityTerms;
    }

    public List<AffinityTerm> preferredAntiAffinityTerms() {
        return preferredAntiAffinityTerms;
    }

    /** Whether the pod has any pod affinity or anti-affinity term. */
    public boolean hasAffinity() {
        return !requiredAffinityTerms.isEmpty() || !requiredAntiAffinityTerms.isEmpty() || !preferredAffinityTerms.isEmpty() || !preferredAntiAffinityTerms.isEmpty();
    }

    public boolean isTerminating() {
        // Kept as a field: plugins ask this of every pod in the cluster per cycle, and the pod's metadata is two
        // dereferences away.
        return terminating;
    }

    /** When the pod started running, else when it was created: preemption spares the older pods first. */
    public Instant startTime() {
        String text = pod.getStatus() != null && pod.getStatus().getStartTime() != null ? pod.getStatus().getStartTime() : pod.getMetadata().getCreationTimestamp();
        if (text == null) {
            return Instant.EPOCH;
        }
        try {
            return Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    /**
     * The same pod assumed onto {@code nodeName}: {@link #nodeName()} answers the node while {@link #pod()} stays the
     * shared, unmodified API object (copying every pod on the hot path would cost more than the whole filter pass).
     */
    public PodInfo withNodeName(String nodeName) {
        return new PodInfo(pod, nodeName, this);
    }

    private PodInfo(Pod pod, String nodeName, PodInfo derivedFrom) {
        this.pod = pod;
        this.nodeName = requireNonNull(nodeName, "nodeName is null");
        this.terminating = derivedFrom.terminating;
        this.uid = derivedFrom.uid;
        this.namespace = derivedFrom.namespace;
        this.name = derivedFrom.name;
        this.labels = derivedFrom.labels;
        this.priority = derivedFrom.priority;
        this.requests = derivedFrom.requests;
        this.nonZeroRequests = derivedFrom.nonZeroRequests;
        this.hostPorts = derivedFrom.hostPorts;
        this.requiredAffinityTerms = derivedFrom.requiredAffinityTerms;
        this.requiredAntiAffinityTerms = derivedFrom.requiredAntiAffinityTerms;
        this.preferredAffinityTerms = derivedFrom.preferredAffinityTerms;
        this.preferredAntiAffinityTerms = derivedFrom.preferredAntiAffinityTerms;
    }

    @Override
    public String toString() {
        return key();
    }
}
