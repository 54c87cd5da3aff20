package io.k4j.bench;

/** The objects the benchmarks create. */
final class PodTemplates {
    private PodTemplates() {}

    /**
     * A pod for the apiserver benchmark. Its scheduler name is one no profile serves, so that the server's scheduler
     * leaves it alone: with no nodes it would otherwise retry every pod, and that work is not the apiserver's.
     */
    static String pod(String name, String namespace) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","labels":{"app":"bench","tier":"load"}},
                 "spec":{"schedulerName":"k4j-bench-unscheduled","containers":[{"name":"app","image":"nginx:1.25","ports":[{"containerPort":80}],
                 "resources":{"requests":{"cpu":"10m","memory":"16Mi"}}}]}}""".formatted(name, namespace);
    }

    /** A pod whose name the server generates, so that one body serves every create of a run. */
    static String generatedPod(String namePrefix, String namespace) {
        return pod(namePrefix, namespace).replace("\"name\":\"" + namePrefix + "\"", "\"generateName\":\"" + namePrefix + "\"");
    }

    static String namespace(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + name + "\"}}";
    }

    static String configMap(String name, String value) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"value\":\"" + value + "\"}}";
    }
}
