package io.k4j.apiserver.filters;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.endpoints.RequestInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuditLogTest {
    private static final UserInfo ADMIN = new UserInfo("admin", "", List.of(UserInfo.MASTERS_GROUP), Map.of());

    @Test
    void resourceRequestLine() {
        RequestInfo info = new RequestInfo(true, "/apis/apps/v1/namespaces/web/deployments/front/scale", "update", "apis",
                "apps", "v1", "web", "deployments", "scale", "front");

        String line = AuditLog.line(ADMIN, info, "PUT", "/apis/apps/v1/namespaces/web/deployments/front/scale?dryRun=All",
                "127.0.0.1", "kubectl/v1.32.0", 200, 1_234_567);

        assertThat(line).isEqualTo("user=admin verb=update apps/deployments/scale namespace=web name=front method=PUT "
                + "uri=/apis/apps/v1/namespaces/web/deployments/front/scale?dryRun=All source=127.0.0.1 "
                + "userAgent=\"kubectl/v1.32.0\" code=200 latency=1.235ms");
    }

    @Test
    void nonResourceRequestOfAnUnauthenticatedCallerWithoutUserAgent() {
        String line = AuditLog.line(null, RequestInfo.nonResource("/healthz", "get"), "GET", "/healthz", "10.0.0.7", null, 401, 42_000);

        assertThat(line).isEqualTo("user=<unauthenticated> verb=get /healthz method=GET uri=/healthz source=10.0.0.7 userAgent=\"\" code=401 latency=0.042ms");
    }

    @Test
    void latencyKeepsThreeDecimalsAcrossMagnitudes() {
        RequestInfo info = RequestInfo.nonResource("/version", "get");

        assertThat(AuditLog.line(null, info, "GET", "/version", "a", "b", 200, 2_500_000_000L)).endsWith("latency=2500.000ms");
        assertThat(AuditLog.line(null, info, "GET", "/version", "a", "b", 200, 5_000)).endsWith("latency=0.005ms");
        assertThat(AuditLog.line(null, info, "GET", "/version", "a", "b", 200, 0)).endsWith("latency=0.000ms");
    }
}
