package io.k4j.launcher;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps upstream's {@code -v} levels onto log levels: 0-1 INFO, 2-4 DEBUG, 5+ TRACE. One line per request appears
 * from {@code -v 3} on, as upstream's apiserver logs requests only at higher verbosity: at the default level the
 * controllers' steady traffic (lease renewals, status updates) would drown every other line.
 */
final class Logging {
    private Logging() {}

    static void configure(int verbosity) {
        Level level = verbosity >= 5 ? Level.TRACE : verbosity >= 2 ? Level.DEBUG : Level.INFO;
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(level);
        Logger audit = (Logger) LoggerFactory.getLogger("io.k4j.apiserver.audit");
        audit.setLevel(verbosity >= 3 ? Level.INFO : Level.WARN);
    }
}
