package io.k4j.apiserver.registry.core.pod;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.kubelet.KubeletClient;
import io.k4j.apiserver.kubelet.KubeletLocation;
import io.k4j.apiserver.kubelet.KubeletResponse;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET pods/<name>/log}: validates {@code PodLogOptions} as upstream does, picks the container, and streams
 * {@code /containerLogs/<namespace>/<pod>/<container>} from the pod's kubelet to the client as {@code text/plain},
 * flushing as the kubelet sends (so {@code follow} is live). The kubelet reads, tails, filters and limits the log; its
 * errors (e.g. {@code container "c" in pod "p" is waiting to start: ContainerCreating}) come back as 400 Status.
 *
 * <p>Thread-safe.
 */
public final class PodLogHandler implements SubresourceHandler {
    public static final String SUBRESOURCE = "log";

    private final KubeletClient kubelets;

    public PodLogHandler(KubeletClient kubelets) {
        this.kubelets = requireNonNull(kubelets, "kubelets is null");
    }

    @Override
    public String subresource() {
        return SUBRESOURCE;
    }

    @Override
    public String apiVersion() {
        return "v1";
    }

    @Override
    public String kind() {
        return "Pod";
    }

    @Override
    public boolean streaming() {
        return true;
    }

    @Override
    public void connect(Request request, HttpExchange exchange) throws IOException {
        if (!exchange.method().equals("GET")) {
            throw StatusException.methodNotSupported("", "pods/log", exchange.method().toLowerCase(java.util.Locale.ROOT));
        }
        List<Map.Entry<String, String>> parameters = logParameters(exchange, request.name());
        ObjectNode pod = request.parent().get(request.namespace(), request.name());
        String container = PodConnections.container(pod, exchange.queryParameter("container"));
        KubeletLocation location = kubelets.locate(PodConnections.nodeName(pod));
        String path = "/containerLogs/" + KubeletClient.pathSegment(request.namespace()) + "/" + KubeletClient.pathSegment(request.name())
                + "/" + KubeletClient.pathSegment(container) + KubeletClient.query(parameters);
        KubeletResponse response;
        try {
            response = kubelets.send(location, "GET", path, Map.of());
        } catch (IOException e) {
            throw StatusException.internalError("Get \"https://" + location.authority() + path + "\": " + e.getMessage());
        }
        try (response) {
            if (response.status() < 200 || response.status() > 206) {
                throw PodConnections.kubeletError(response, "pods/log", request.name());
            }
            OutputStream output = exchange.startStream(200, "text/plain");
            InputStream body = response.body();
            byte[] buffer = new byte[32 * 1024];
            while (true) {
                int count = body.read(buffer);
                if (count < 0) {
                    break;
                }
                output.write(buffer, 0, count);
                if (body.available() == 0) {
                    output.flush();
                }
            }
            output.close();
        }
    }

    /** The options for the kubelet, in upstream's names, after upstream's validation of {@code PodLogOptions}. */
    static List<Map.Entry<String, String>> logParameters(HttpExchange exchange, String name) {
        FieldErrors errors = new FieldErrors();
        List<Map.Entry<String, String>> parameters = new ArrayList<>();
        for (String flag : List.of("follow", "previous", "timestamps")) {
            if (PodConnections.flag(exchange, flag)) {
                parameters.add(new SimpleEntry<>(flag, "true"));
            }
        }
        String sinceSeconds = exchange.queryParameter("sinceSeconds");
        String sinceTime = exchange.queryParameter("sinceTime");
        if (sinceSeconds != null && sinceTime != null) {
            errors.add(FieldError.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
        }
        if (sinceSeconds != null) {
            long seconds = number(sinceSeconds, "sinceSeconds");
            if (seconds < 1) {
                errors.add(FieldError.invalid("sinceSeconds", seconds, "must be greater than 0"));
            }
            parameters.add(new SimpleEntry<>("sinceSeconds", Long.toString(seconds)));
        }
        if (sinceTime != null) {
            try {
                OffsetDateTime.parse(sinceTime);
            } catch (DateTimeParseException e) {
                throw StatusException.badRequest("parsing time \"" + sinceTime + "\" as \"2006-01-02T15:04:05Z07:00\": cannot parse");
            }
            parameters.add(new SimpleEntry<>("sinceTime", sinceTime));
        }
        String tailLines = exchange.queryParameter("tailLines");
        if (tailLines != null) {
            long lines = number(tailLines, "tailLines");
            if (lines < 0) {
                errors.add(FieldError.invalid("tailLines", lines, "must be greater than or equal to 0"));
            }
            parameters.add(new SimpleEntry<>("tailLines", Long.toString(lines)));
        }
        String limitBytes = exchange.queryParameter("limitBytes");
        if (limitBytes != null) {
            long bytes = number(limitBytes, "limitBytes");
            if (bytes < 1) {
                errors.add(FieldError.invalid("limitBytes", bytes, "must be greater than 0"));
            }
            parameters.add(new SimpleEntry<>("limitBytes", Long.toString(bytes)));
        }
        if (!errors.isEmpty()) {
            throw StatusException.invalid("", "PodLogOptions", name, errors);
        }
        return List.copyOf(parameters);
    }

    private static long number(String value, String parameter) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw StatusException.badRequest("invalid value for " + parameter + ": strconv.ParseInt: parsing \"" + value + "\": invalid syntax");
        }
    }
}
