package io.k4j.launcher.inprocess;

import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** An in-process answer's status and headers (names compared ignoring case, as HTTP's), with fabric8's body type. */
final class InProcessResponse<T> implements HttpResponse<T> {
    private final HttpRequest request;
    private final int code;
    private final Map<String, List<String>> headers;
    private final T body;

    InProcessResponse(HttpRequest request, int code, Map<String, List<String>> headers, T body) {
        this.request = request;
        this.code = code;
        TreeMap<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
        this.headers = copy;
        this.body = body;
    }

    @Override
    public int code() {
        return code;
    }

    @Override
    public T body() {
        return body;
    }

    @Override
    public HttpRequest request() {
        return request;
    }

    @Override
    public Optional<HttpResponse<?>> previousResponse() {
        return Optional.empty();
    }

    @Override
    public List<String> headers(String key) {
        return headers.getOrDefault(key, List.of());
    }

    @Override
    public Map<String, List<String>> headers() {
        return headers;
    }
}
