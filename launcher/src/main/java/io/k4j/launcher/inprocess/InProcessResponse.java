package io.k4j.launcher.inprocess;

import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.StandardHttpHeaders;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An in-process answer's status and headers (fabric8's headers, looked up ignoring case as HTTP's), with fabric8's body
 * type. The headers map is the exchange's, complete once the answer started.
 */
final class InProcessResponse<T> extends StandardHttpHeaders implements HttpResponse<T> {
    private final HttpRequest request;
    private final int code;
    private final T body;

    InProcessResponse(HttpRequest request, int code, Map<String, List<String>> headers, T body) {
        super(headers);
        this.request = request;
        this.code = code;
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
}
