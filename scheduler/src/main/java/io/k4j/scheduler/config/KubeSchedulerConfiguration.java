package io.k4j.scheduler.config;

import java.time.Duration;
import java.util.List;

/**
 * The scheduler's configuration in upstream's {@code kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration}
 * shape, validated and defaulted.
 *
 * @param percentageOfNodesToScore 0 for the adaptive default, else 1..100
 * @param podInitialBackoff the first backoff of a failed pod
 * @param podMaxBackoff the longest backoff
 * @param parallelism the threads for filters and scores
 * @param profiles one or more profiles with distinct scheduler names
 */
public record KubeSchedulerConfiguration(int percentageOfNodesToScore, Duration podInitialBackoff, Duration podMaxBackoff,
        int parallelism, List<Profile> profiles) {
    public static final String API_VERSION = "kubescheduler.config.k8s.io/v1";
    public static final String KIND = "KubeSchedulerConfiguration";
    public static final String DEFAULT_SCHEDULER_NAME = "default-scheduler";

    public KubeSchedulerConfiguration {
        profiles = List.copyOf(profiles);
    }
}
