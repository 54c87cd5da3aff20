package io.k4j.api.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CronScheduleTest {
    @ParameterizedTest
    @ValueSource(strings = {"*/5 * * * *", "0 0 1 1 *", "0-30/10 9-17 * * mon-fri", "15 3 ? JAN,jul SUN", "@hourly", "@daily", "@midnight",
        "@weekly", "@monthly", "@yearly", "@annually", "@every 1h30m", "TZ=Europe/Berlin 0 6 * * *", "CRON_TZ=UTC @daily", "5 */2 1,15 * 0"})
    void acceptsUpstreamsSyntax(String schedule) throws Exception {
        CronSchedule.parse(schedule);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "* * * *|expected exactly 5 fields, found 4: [* * * *]",
        "* * * * * *|expected exactly 5 fields, found 6: [* * * * * *]",
        "60 * * * *|end of range (60) above maximum (59): 60",
        "* * 0 * *|beginning of range (0) below minimum (1): 0",
        "5-1 * * * *|beginning of range (5) beyond end of range (1): 5-1",
        "*/0 * * * *|step of range should be a positive number: */0",
        "1-2-3 * * * *|too many hyphens: 1-2-3",
        "1/2/3 * * * *|too many slashes: 1/2/3",
        "x * * * *|failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax",
        "* * * foo *|failed to parse int from foo: strconv.Atoi: parsing \"foo\": invalid syntax",
        "@often|unrecognized descriptor: @often",
        "@every 5 minutes|failed to parse duration @every 5 minutes: time: invalid duration \"5 minutes\"",
        "TZ=Mars/Olympus * * * * *|provided bad location Mars/Olympus: unknown time zone Mars/Olympus"})
    void rejectsWithUpstreamsMessages(String schedule, String message) {
        assertThatThrownBy(() -> CronSchedule.parse(schedule)).isInstanceOf(CronSchedule.InvalidScheduleException.class).hasMessage(message);
    }

    @Test
    void keepsFieldsZoneAndInterval() throws Exception {
        CronSchedule schedule = CronSchedule.parse("TZ=Europe/Berlin 0-10/5 3 * * *");
        assertThat(schedule.zone()).contains(ZoneId.of("Europe/Berlin"));
        assertThat(schedule.fields().get(0)).isEqualTo(1L | 1L << 5 | 1L << 10);
        assertThat(schedule.fields().get(1)).isEqualTo(1L << 3);

        assertThat(CronSchedule.parse("@every 90s").interval()).contains(Duration.ofSeconds(90));
        assertThat(CronSchedule.parse("@weekly").fields().get(4)).isEqualTo(1L);
    }
}
