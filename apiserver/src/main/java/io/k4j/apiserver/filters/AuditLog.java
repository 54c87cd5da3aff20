package io.k4j.apiserver.filters;

import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.endpoints.RequestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one line per finished request to the {@code io.k4j.apiserver.audit} logger: who, what (verb, resource,
 * namespace, name or path), from where, the response code and the latency. Thread-safe.
 */
public final class AuditLog {
    private static final Logger LOG = LoggerFactory.getLogger("io.k4j.apiserver.audit");

    public void record(UserInfo user, RequestInfo info, String method, String uri, String sourceAddress, String userAgent, int code, long nanos) {
        if (!LOG.isInfoEnabled()) {
            return;
        }
        String target = info.resourceRequest()
                ? (info.apiGroup().isEmpty() ? "" : info.apiGroup() + "/") + info.resource()
                        + (info.subresource().isEmpty() ? "" : "/" + info.subresource())
                        + (info.namespace().isEmpty() ? "" : " namespace=" + info.namespace())
                        + (info.name().isEmpty() ? "" : " name=" + info.name())
                : info.path();
        LOG.info("user={} verb={} {} method={} uri={} source={} userAgent=\"{}\" code={} latency={}ms",
                user == null ? "<unauthenticated>" : user.name(), info.verb(), target, method, uri, sourceAddress,
                userAgent == null ? "" : userAgent, code, String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e6));
    }
}
