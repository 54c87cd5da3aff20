package io.k4j.apiserver.discovery;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of {@code /healthz}, {@code /livez}, {@code /readyz} with upstream's output: {@code ok}, or with
 * {@code ?verbose} one {@code [+]name ok} / {@code [-]name failed: reason withheld} line per check followed by
 * {@code <endpoint> check passed|failed}; {@code ?exclude=name} skips checks; {@code /<endpoint>/<name>} runs one.
 * Thread-safe.
 */
public final class HealthEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(HealthEndpoint.class);

    private final String name;
    private final List<HealthCheck> checks;

    /** The answer: HTTP status and text body. */
    public record Answer(int status, String body) {}

    public HealthEndpoint(String name, List<HealthCheck> checks) {
        this.name = requireNonNull(name, "name is null");
        this.checks = List.copyOf(requireNonNull(checks, "checks is null"));
    }

    public String name() {
        return name;
    }

    /** Runs every check not excluded. */
    public Answer all(boolean verbose, Set<String> excluded) {
        StringBuilder body = new StringBuilder();
        boolean failed = false;
        for (HealthCheck check : checks) {
            if (excluded.contains(check.name())) {
                body.append("[+]").append(check.name()).append(" excluded: ok\n");
                continue;
            }
            Optional<String> failure = run(check);
            if (failure.isEmpty()) {
                body.append("[+]").append(check.name()).append(" ok\n");
            } else {
                failed = true;
                body.append("[-]").append(check.name()).append(" failed: reason withheld\n");
            }
        }
        if (failed) {
            return new Answer(500, body.append(name).append(" check failed\n").toString());
        }
        if (!verbose) {
            return new Answer(200, "ok");
        }
        return new Answer(200, body.append(name).append(" check passed\n").toString());
    }

    /** Runs one named check; empty when there is no such check. */
    public Optional<Answer> one(String checkName) {
        for (HealthCheck check : checks) {
            if (check.name().equals(checkName)) {
                Optional<String> failure = run(check);
                return Optional.of(failure.isEmpty() ? new Answer(200, "ok") : new Answer(500, "internal server error: " + failure.get() + "\n"));
            }
        }
        return Optional.empty();
    }

    private Optional<String> run(HealthCheck check) {
        try {
            check.check();
            return Optional.empty();
        } catch (Exception e) {
            LOG.warn("{} check {} failed: {}", name, check.name(), e.toString());
            return Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }
}
