package io.k4j.kubelet.prober;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Answers exec calls from a script: queued answers first, then the default answer. An answer is an exit code with
 * output, a timeout or a runtime error. Remembers every call. Thread-safe.
 */
public final class FakeContainerCommandRunner implements ContainerCommandRunner {
    /** One scripted answer. */
    public sealed interface Answer {
        record Exit(int code, String stdout, String stderr) implements Answer {}

        record Timeout() implements Answer {}

        record Error(String message) implements Answer {}
    }

    /** One call. */
    public record Call(String containerId, List<String> command, Duration timeout) {}

    private final Deque<Answer> queued = new ArrayDeque<>();
    private final List<Call> calls = new ArrayList<>();
    private Answer fallback = new Answer.Exit(0, "", "");

    public synchronized FakeContainerCommandRunner thenAnswer(Answer answer) {
        queued.add(answer);
        return this;
    }

    public synchronized FakeContainerCommandRunner alwaysAnswer(Answer answer) {
        queued.clear();
        fallback = answer;
        return this;
    }

    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    @Override
    public ExecResult execSync(String containerId, List<String> command, Duration timeout) throws IOException, TimeoutException {
        Answer answer;
        synchronized (this) {
            calls.add(new Call(containerId, List.copyOf(command), timeout));
            answer = queued.isEmpty() ? fallback : queued.poll();
        }
        return switch (answer) {
            case Answer.Exit exit -> new ExecResult(exit.code(), exit.stdout().getBytes(StandardCharsets.UTF_8),
                    exit.stderr().getBytes(StandardCharsets.UTF_8));
            case Answer.Timeout timeout1 -> throw new TimeoutException("timed out after " + timeout);
            case Answer.Error error -> throw new IOException(error.message());
        };
    }
}
