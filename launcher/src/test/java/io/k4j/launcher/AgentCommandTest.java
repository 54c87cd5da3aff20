package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What {@code k4j agent} says, and that it exits 1, when it cannot join; nothing here gets as far as starting a node. */
class AgentCommandTest {
    private static final String WELL_FORMED_TOKEN = "K4J" + "ab".repeat(32) + "::node:secret";

    @TempDir
    Path directory;

    @BeforeEach
    void requireRoot() {
        // The agent checks for root first; as anybody else every run ends there.
        assumeTrue("root".equals(System.getProperty("user.name")), "k4j agent runs only as root");
    }

    private record Run(int exitCode, String errors) {}

    private Run agent(String... arguments) {
        PrintStream original = System.err;
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
        try {
            String[] withDataDirectory = new String[arguments.length + 2];
            System.arraycopy(arguments, 0, withDataDirectory, 0, arguments.length);
            withDataDirectory[arguments.length] = "--data-dir";
            withDataDirectory[arguments.length + 1] = directory.resolve("agent").toString();
            int exitCode = new CommandLine(new AgentCommand()).execute(withDataDirectory);
            return new Run(exitCode, errors.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(original);
        }
    }

    @Test
    void withoutATokenItSaysWhereTheTokenIs() {
        Run run = agent("--server", "https://127.0.0.1:6443");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errors()).contains("k4j agent: the agent needs the server's join token: --token=<content of the server's <data-dir>/token>");
    }

    @Test
    void aMalformedTokenIsRefusedBeforeAnythingIsSent() {
        Run run = agent("--server", "https://127.0.0.1:6443", "--token", "K4Jnothex::node:secret");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errors()).contains("k4j agent: the join token is malformed");
    }

    @Test
    void aMissingTokenFileIsNamed() {
        Path missing = directory.resolve("no-such-token");

        Run run = agent("--server", "https://127.0.0.1:6443", "--token-file", missing.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errors()).contains("cannot read --token-file " + missing);
    }

    @Test
    void anUnreachableServerSaysWhatToCheck() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }

        Run run = agent("--server", "https://127.0.0.1:" + closedPort, "--token", WELL_FORMED_TOKEN, "--node-name", "worker-1");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errors()).contains("k4j agent: cannot reach the k4j server at https://127.0.0.1:" + closedPort,
                "check --server and that `k4j server` runs there");
        assertThat(Files.exists(directory.resolve("agent").resolve("kubelet.kubeconfig"))).isFalse();
    }
}
