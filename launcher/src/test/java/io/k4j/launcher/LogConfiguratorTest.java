package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

class LogConfiguratorTest {
    @Test
    void writesComponentFirstLinesWithThePaddedLevel() {
        LoggerContext context = new LoggerContext();
        LoggingEvent event = new LoggingEvent("io.k4j.launcher.Bootstrap", context.getLogger("bootstrap.objects"), Level.INFO,
                "created {} objects", null, new Object[] {3});

        String line = new LogConfigurator.LineLayout().doLayout(event);

        assertThat(line).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  objects: created 3 objects" + System.lineSeparator());
    }

    @Test
    void appendsTheStackTraceOfAThrowable() {
        LoggerContext context = new LoggerContext();
        LoggingEvent event = new LoggingEvent("x", context.getLogger("server"), Level.WARN, "failed", new IllegalStateException("boom"), null);

        String text = new LogConfigurator.LineLayout().doLayout(event);

        assertThat(text).contains("WARN  server: failed").contains("java.lang.IllegalStateException: boom").contains("at io.k4j.launcher.LogConfiguratorTest");
    }

    @Test
    void quietsLibrariesAndLeavesAnExplicitConfigurationFileAlone() {
        LoggerContext context = new LoggerContext();
        LogConfigurator configurator = new LogConfigurator();
        configurator.setContext(context);

        assertThat(configurator.configure(context)).isEqualTo(ch.qos.logback.classic.spi.Configurator.ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);

        assertThat(context.getLogger("org.eclipse.jetty.server").getEffectiveLevel()).isEqualTo(Level.WARN);
        assertThat(context.getLogger("io.k4j.anything").getEffectiveLevel()).isEqualTo(Level.INFO);
        assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDERR")).isNotNull();
    }
}
