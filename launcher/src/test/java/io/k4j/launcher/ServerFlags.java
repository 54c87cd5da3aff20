package io.k4j.launcher;

import picocli.CommandLine;

/** Parses {@code k4j server} flags into the configuration the server would start with, for flag tests. */
final class ServerFlags {
    private ServerFlags() {}

    static ServerConfig parse(String... arguments) throws Exception {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(arguments);
        return command.toConfig();
    }
}
