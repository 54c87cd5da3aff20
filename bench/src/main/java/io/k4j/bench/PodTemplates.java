package io.k4j.bench;

/** The objects the benchmarks create. */
final class PodTemplates {
    private PodTemplates() {}

    static String pod(String name, String namespace) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","labels":{"app":"bench","tier":"load"}},
                 "spec":{"containers":[{"name":"app","image":"nginx:1.25","ports":[{"containerPort":80}],
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
