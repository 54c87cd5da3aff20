package io.k4j.launcher;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Logback's configuration, in code (found through {@code META-INF/services}): one line per event on standard error,
 * {@code HH:mm:ss.SSS LEVEL component: message}, component (the logger's last name) first as upstream components log;
 * Jetty, gRPC, Netty and jetcd only from WARN. Reading an XML configuration instead costs a start about a tenth of
 * a second of CPU. {@code -Dlogback.configurationFile=...} still takes precedence; {@code -Dk4j.logLevel} sets the
 * initial root level. Used once by logback at start-up.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {
    private static final List<String> QUIET_LIBRARIES = List.of("org.eclipse.jetty", "io.grpc", "io.netty", "io.etcd");

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        LineLayout layout = new LineLayout();
        layout.setContext(context);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName("STDERR");
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(System.getProperty("k4j.logLevel"), Level.INFO));
        root.addAppender(appender);
        for (String library : QUIET_LIBRARIES) {
            context.getLogger(library).setLevel(Level.WARN);
        }
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** {@code %d{HH:mm:ss.SSS} %-5level %logger{0}: %msg%n} and the stack trace of a throwable, if any. */
    static final class LineLayout extends LayoutBase<ILoggingEvent> {
        private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

        @Override
        public String doLayout(ILoggingEvent event) {
            StringBuilder line = new StringBuilder(128);
            TIME.formatTo(Instant.ofEpochMilli(event.getTimeStamp()), line);
            line.append(' ');
            String level = event.getLevel().toString();
            line.append(level);
            for (int i = level.length(); i < 5; i++) {
                line.append(' ');
            }
            line.append(' ');
            String logger = event.getLoggerName();
            line.append(logger, logger.lastIndexOf('.') + 1, logger.length());
            line.append(": ").append(event.getFormattedMessage()).append(CoreConstants.LINE_SEPARATOR);
            IThrowableProxy throwable = event.getThrowableProxy();
            if (throwable != null) {
                line.append(ThrowableProxyUtil.asString(throwable)).append(CoreConstants.LINE_SEPARATOR);
            }
            return line.toString();
        }
    }
}
