package io.k4j.apiserver.filters;

import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.endpoints.RequestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one line per finished request to the {@code io.k4j.apiserver.audit} logger: who, what (verb, resource,
 * namespace, name or path), from where, the response code and the latency. Thread-safe.
 *
 * <p>The line is built with a string builder rather than a format string: {@code String.format} parsed its pattern
 * on every request and was the larger part of the audit cost on the create path.
 */
public final class AuditLog {
    private static final Logger LOG = LoggerFactory.getLogger("io.k4j.apiserver.audit");

    public void record(UserInfo user, RequestInfo info, String method, String uri, String sourceAddress, String userAgent, int code, long nanos) {
        if (!LOG.isInfoEnabled()) {
            return;
        }
        LOG.info(line(user, info, method, uri, sourceAddress, userAgent, code, nanos));
    }

    /** The audit line; package-private for tests. */
    static String line(UserInfo user, RequestInfo info, String method, String uri, String sourceAddress, String userAgent, int code, long nanos) {
        StringBuilder line = new StringBuilder(160)
                .append("user=").append(user == null ? "<unauthenticated>" : user.name())
                .append(" verb=").append(info.verb()).append(' ');
        if (info.resourceRequest()) {
            if (!info.apiGroup().isEmpty()) {
                line.append(info.apiGroup()).append('/');
            }
            line.append(info.resource());
            if (!info.subresource().isEmpty()) {
                line.append('/').append(info.subresource());
            }
            if (!info.namespace().isEmpty()) {
                line.append(" namespace=").append(info.namespace());
            }
            if (!info.name().isEmpty()) {
                line.append(" name=").append(info.name());
            }
        } else {
            line.append(info.path());
        }
        line.append(" method=").append(method)
                .append(" uri=").append(uri)
                .append(" source=").append(sourceAddress)
                .append(" userAgent=\"").append(userAgent == null ? "" : userAgent).append('"')
                .append(" code=").append(code)
                .append(" latency=");
        appendMillis(line, nanos);
        return line.append("ms").toString();
    }

    /** Milliseconds with three decimals, as {@code %.3f} would print them, without the cost of a Formatter. */
    private static void appendMillis(StringBuilder line, long nanos) {
        long micros = Math.round(nanos / 1_000.0);
        if (micros < 0) {
            line.append('-');
            micros = -micros;
        }
        long fraction = micros % 1_000;
        line.append(micros / 1_000).append('.');
        if (fraction < 100) {
            line.append('0');
        }
        if (fraction < 10) {
            line.append('0');
        }
        line.append(fraction);
    }
}
