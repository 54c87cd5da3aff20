package io.k4j.api.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
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
        assertThat(schedule.fields().get(2)).isEqualTo(CronSchedule.STAR_BIT | 0xFFFFFFFEL);
        assertThat(schedule.fields().get(1)).isEqualTo(1L << 3);

        assertThat(CronSchedule.parse("@every 90s").interval()).contains(Duration.ofSeconds(90));
        assertThat(CronSchedule.parse("@weekly").fields().get(4)).isEqualTo(1L);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "*/1 * * * *|2026-03-10T10:15:30Z|2026-03-10T10:16:00Z",
        "*/1 * * * *|2026-03-10T10:15:00Z|2026-03-10T10:16:00Z",
        "*/15 * * * *|2026-03-10T10:15:00Z|2026-03-10T10:30:00Z",
        "0 9 * * mon-fri|2026-03-13T09:00:00Z|2026-03-16T09:00:00Z",
        "@hourly|2026-03-10T10:15:00Z|2026-03-10T11:00:00Z",
        "@daily|2026-12-31T23:59:59Z|2027-01-01T00:00:00Z",
        "@monthly|2026-01-31T12:00:00Z|2026-02-01T00:00:00Z",
        "@yearly|2026-01-01T00:00:00Z|2027-01-01T00:00:00Z",
        "@weekly|2026-03-10T00:00:00Z|2026-03-15T00:00:00Z",
        "0 0 13 * 5|2026-03-10T00:00:00Z|2026-03-13T00:00:00Z",
        "0 0 29 2 *|2026-03-01T00:00:00Z|2028-02-29T00:00:00Z",
        "@every 90s|2026-03-10T10:00:00Z|2026-03-10T10:01:30Z",
        "TZ=Europe/Berlin 0 6 * * *|2026-07-01T00:00:00Z|2026-07-01T04:00:00Z"})
    void nextActivationMatchesRobfigCron(String schedule, String after, String expected) throws Exception {
        ZonedDateTime next = CronSchedule.parse(schedule).next(ZonedDateTime.parse(after)).orElseThrow();
        assertThat(next.toInstant()).isEqualTo(Instant.parse(expected));
    }

    @Test
    void nextActivationHonoursTheZoneAcrossDaylightSavingTime() throws Exception {
        CronSchedule schedule = CronSchedule.parse("30 2 * * *");
        ZoneId newYork = ZoneId.of("America/New_York");
        // 2:30 does not exist on 2026-03-08 in New York; the next 2:30 is on the 9th.
        ZonedDateTime next = schedule.next(ZonedDateTime.parse("2026-03-08T00:00:00-05:00[America/New_York]")).orElseThrow();
        assertThat(next.getZone()).isEqualTo(newYork);
        assertThat(next.toLocalDateTime().toString()).isEqualTo("2026-03-09T02:30");
        assertThat(schedule.next(ZonedDateTime.parse("2026-03-09T12:00:00Z").withZoneSameInstant(newYork)).orElseThrow().toInstant())
                .isEqualTo(Instant.parse("2026-03-10T06:30:00Z"));
    }

    @Test
    void noActivationForAnImpossibleDate() throws Exception {
        assertThat(CronSchedule.parse("0 0 30 2 *").next(ZonedDateTime.parse("2026-01-01T00:00:00Z"))).isEmpty();
    }
}
