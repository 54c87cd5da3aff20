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

    static String namespace(String name) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + name + "\"}}";
    }

    static String configMap(String name, String value) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"value\":\"" + value + "\"}}";
    }
}
