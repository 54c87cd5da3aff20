package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The typed result of a plugin call: a {@link Code}, the human-readable reasons (aggregated into upstream's
 * {@code FailedScheduling} message) and the plugin that produced it. Immutable and thread-safe.
 */
public final class Status {
    public static final Status SUCCESS = new Status(Code.SUCCESS, List.of(), "", null);
    public static final Status SKIP = new Status(Code.SKIP, List.of(), "", null);

    private final Code code;
    private final List<String> reasons;
    private final String plugin;
    private final Throwable error;

    private Status(Code code, List<String> reasons, String plugin, Throwable error) {
        this.code = requireNonNull(code, "code is null");
        this.reasons = List.copyOf(requireNonNull(reasons, "reasons is null"));
        this.plugin = requireNonNull(plugin, "plugin is null");
        this.error = error;
    }

    public static Status of(Code code, String... reasons) {
        if (code == Code.SUCCESS && reasons.length == 0) {
            return SUCCESS;
        }
        return new Status(code, List.of(reasons), "", null);
    }

    public static Status unschedulable(String... reasons) {
        return of(Code.UNSCHEDULABLE, reasons);
    }

    public static Status unresolvable(String... reasons) {
        return of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons);
    }

    public static Status error(String message) {
        return new Status(Code.ERROR, List.of(message), "", null);
    }

    public static Status error(Throwable error) {
        String message = error.getMessage() == null ? error.toString() : error.getMessage();
        return new Status(Code.ERROR, List.of(message), "", error);
    }

    public Code code() {
        return code;
    }

    public List<String> reasons() {
        return reasons;
    }

    /** The plugin that returned this status, empty when none was recorded. */
    public String plugin() {
        return plugin;
    }

    /** The exception behind an {@link Code#ERROR}, or null. */
    public Throwable error() {
        return error;
    }

    public Status withPlugin(String pluginName) {
        if (pluginName.equals(plugin)) {
            return this;
        }
        return new Status(code, reasons, pluginName, error);
    }

    public boolean isSuccess() {
        return code == Code.SUCCESS;
    }

    public boolean isSkip() {
        return code == Code.SKIP;
    }

    public boolean isWait() {
        return code == Code.WAIT;
    }

    /** Whether the pod was rejected (unschedulable, unresolvable or pending), as opposed to an error. */
    public boolean isRejected() {
        return code == Code.UNSCHEDULABLE || code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE || code == Code.PENDING;
    }

    /** The reasons joined as upstream's {@code Status.Message()}. */
    public String message() {
        return String.join(", ", reasons);
    }

    @Override
    public String toString() {
        return code + (plugin.isEmpty() ? "" : "(" + plugin + ")") + (reasons.isEmpty() ? "" : ": " + message());
    }
}
