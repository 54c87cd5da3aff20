package io.k4j.launcher;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one k4j program; subcommands select what runs, as k3s dispatches its single binary. */
@Command(
        name = "k4j",
        mixinStandardHelpOptions = true,
        versionProvider = Versions.class,
        description = "A Kubernetes-compatible cluster in one Java program.",
        subcommands = {ServerCommand.class, AgentCommand.class, io.k4j.launcher.images.ImagesCommand.class})
public final class Main implements Runnable {
    public static void main(String[] args) {
        int exitCode = new CommandLine(new Main())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args);
        // Always exit explicitly: library threads must not keep a finished command alive, and a training run
        // (server --exit-when-ready) writes its class-data sharing archive on this exit.
        System.exit(exitCode);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
