package io.k4j.e2e;

import static java.util.Objects.requireNonNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The java command {@code ./k4j} runs a launcher subcommand with, for the processes the tests start: this JVM's java,
 * the JVM options of every server start ({@code server.jvm-options}), then the launcher's class path and main class.
 */
final class LauncherCommand {
    private LauncherCommand() {}

    /** The built launcher: {@code k4j.launcher.dir}, which must hold the jar and its JVM options. */
    static Path directory() {
        Path directory = Path.of(requireNonNull(System.getProperty("k4j.launcher.dir"), "system property k4j.launcher.dir is not set"));
        for (String file : List.of("k4j-launcher.jar", "server.jvm-options")) {
            if (!Files.exists(directory.resolve(file))) {
                throw new IllegalStateException(directory.resolve(file) + " is missing: build the launcher first (mvn package)");
            }
        }
        return directory;
    }

    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    /** java, the heap limit when one is given, and the server's JVM options; more JVM options may follow. */
    static List<String> jvm(Path directory, String heap) {
        List<String> command = new ArrayList<>(List.of(java()));
        if (heap != null) {
            command.add("-Xmx" + heap);
        }
        command.add("@" + directory.resolve("server.jvm-options"));
        return command;
    }

    /** The class path and main class, then the subcommand: what follows the JVM options. */
    static List<String> main(Path directory, String subcommand) {
        return List.of("-cp", directory.resolve("k4j-launcher.jar") + ":" + directory.resolve("lib") + "/*", "io.k4j.launcher.Main", subcommand);
    }
}
