package io.k4j.api.quantity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.api.codec.Json;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantityTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // input | canonical text | value | format
        "0            | 0                   | 0                   | DECIMAL_SI",
        "0m           | 0                   | 0                   | DECIMAL_SI",
        "0Ki          | 0                   | 0                   | BINARY_SI",
        "1            | 1                   | 1                   | DECIMAL_SI",
        "1000m        | 1                   | 1                   | DECIMAL_SI",
        "100m         | 100m                | 0.1                 | DECIMAL_SI",
        "0.1          | 100m                | 0.1                 | DECIMAL_SI",
        "1.5          | 1500m               | 1.5                 | DECIMAL_SI",
        "12.34        | 12340m              | 12.34               | DECIMAL_SI",
        "1500m        | 1500m               | 1.5                 | DECIMAL_SI",
        "0.0001       | 100u                | 0.0001              | DECIMAL_SI",
        "1n           | 1n                  | 0.000000001         | DECIMAL_SI",
        "0.1n         | 1n                  | 0.000000001         | DECIMAL_SI",
        "0.0000000001 | 1n                  | 0.000000001         | DECIMAL_SI",
        "1.0000000001 | 1000000001n         | 1.000000001         | DECIMAL_SI",
        "1000         | 1k                  | 1000                | DECIMAL_SI",
        "100k         | 100k                | 100000              | DECIMAL_SI",
        "1000k        | 1M                  | 1000000             | DECIMAL_SI",
        "12E          | 12E                 | 12000000000000000000 | DECIMAL_SI",
        "1Ki          | 1Ki                 | 1024                | BINARY_SI",
        "1024Ki       | 1Mi                 | 1048576             | BINARY_SI",
        "1024Mi       | 1Gi                 | 1073741824          | BINARY_SI",
        "1536Mi       | 1536Mi              | 1610612736          | BINARY_SI",
        "1.5Gi        | 1536Mi              | 1610612736          | BINARY_SI",
        "0.5Ki        | 512                 | 512                 | BINARY_SI",
        "1.5Ki        | 1536                | 1536                | BINARY_SI",
        "0.5Mi        | 512Ki               | 524288              | BINARY_SI",
        "1e3          | 1e3                 | 1000                | DECIMAL_EXPONENT",
        "1000e0       | 1e3                 | 1000                | DECIMAL_EXPONENT",
        "1E6          | 1E6                 | 1000000             | DECIMAL_EXPONENT",
        "1.5e3        | 1500                | 1500                | DECIMAL_EXPONENT",
        "1e-3         | 1e-3                | 0.001               | DECIMAL_EXPONENT",
        "-1           | -1                  | -1                  | DECIMAL_SI",
        "-0.5         | -500m               | -0.5                | DECIMAL_SI",
        "+1           | +1                  | 1                   | DECIMAL_SI",
        "01           | 01                  | 1                   | DECIMAL_SI",
        "9223372036854775807 | 9223372036854775807 | 9223372036854775807 | DECIMAL_SI",
        "9223372036854775808 | 9223372036854775807 | 9223372036854775807 | DECIMAL_SI",
        "8Ei          | 9223372036854775807 | 9223372036854775807 | BINARY_SI",
        "1.          | 1.                  | 1                   | DECIMAL_SI",
        ".5          | 500m                | 0.5                 | DECIMAL_SI",
    })
    void parsesAndCanonicalisesAsUpstream(String input, String canonical, String value, Quantity.Format format) {
        Quantity quantity = Quantity.parse(input);
        assertThat(quantity.toString()).isEqualTo(canonical);
        assertThat(quantity.toBigDecimal()).isEqualByComparingTo(new BigDecimal(value));
        assertThat(quantity.format()).isEqualTo(format);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.1.1", "1+1.0M", "aoeu", " 1", "1 ", "1.1.M"})
    void rejectsMalformedQuantities(String input) {
        assertThatThrownBy(() -> Quantity.parse(input)).isInstanceOf(IllegalArgumentException.class).hasMessage(Quantity.FORMAT_ERROR);
    }

    @Test
    void rejectsEmptyAndUnknownSuffixes() {
        assertThatThrownBy(() -> Quantity.parse(""))
                .hasMessage("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
        for (String input : new String[] {"0.1mi", "1i", "1e", "5ii", "1Kii", "1kK", "1m1"}) {
            assertThatThrownBy(() -> Quantity.parse(input)).as(input).hasMessage("unable to parse quantity's suffix");
        }
    }

    @Test
    void roundsValuesAwayFromZero() {
        assertThat(Quantity.parse("1500m").value()).isEqualTo(2);
        assertThat(Quantity.parse("1").milliValue()).isEqualTo(1000);
        assertThat(Quantity.parse("1.0001m").milliValue()).isEqualTo(2);
        assertThat(Quantity.parse("-1500m").value()).isEqualTo(-2);
        assertThat(Quantity.parse("1Gi").value()).isEqualTo(1073741824L);
        assertThat(Quantity.parse("1Gi").scaledValue(6)).isEqualTo(1074);
    }

    @Test
    void addsSubtractsAndCompares() {
        Quantity sum = Quantity.parse("100m").add(Quantity.parse("900m"));
        assertThat(sum.toString()).isEqualTo("1");
        assertThat(Quantity.ZERO.add(Quantity.parse("1Ki")).toString()).isEqualTo("1Ki");
        assertThat(Quantity.parse("1Gi").subtract(Quantity.parse("512Mi")).toString()).isEqualTo("512Mi");
        assertThat(Quantity.parse("1").subtract(Quantity.parse("2")).toString()).isEqualTo("-1");
        assertThat(Quantity.parse("1Ki")).isEqualTo(Quantity.parse("1024")).hasSameHashCodeAs(Quantity.parse("1024"));
        assertThat(Quantity.parse("1").compareTo(Quantity.parse("999m"))).isPositive();
        assertThat(Quantity.parse("500m").negate().toString()).isEqualTo("-500m");
        assertThat(Quantity.ofMilli(250, Quantity.Format.DECIMAL_SI).toString()).isEqualTo("250m");
        assertThat(Quantity.of(2048, Quantity.Format.BINARY_SI).toString()).isEqualTo("2Ki");
    }

    @Test
    void readsJsonStringsAndNumbers() {
        assertThat(Quantity.fromJson(Json.read("\" 2Gi \""))).isEqualTo(Quantity.parse("2Gi"));
        assertThat(Quantity.fromJson(Json.read("0.5")).toString()).isEqualTo("500m");
        assertThat(Quantity.fromJson(Json.read("3")).toString()).isEqualTo("3");
        assertThat(Quantity.fromJson(Json.read("null"))).isNull();
    }
}
