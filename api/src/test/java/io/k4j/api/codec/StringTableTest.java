package io.k4j.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StringTableTest {
    private final StringTable table = new StringTable(64);

    @Test
    void equalValuesBecomeOneInstance() {
        String first = table.canonical(new String("IfNotPresent"));

        assertThat(table.canonical(new String("IfNotPresent"))).isSameAs(first);
        char[] text = "xxIfNotPresentyy".toCharArray();
        assertThat(table.canonical(text, 2, 12)).isSameAs(first);
    }

    @Test
    void charactersNotYetSeenMakeAStringTheNextLookupFinds() {
        char[] text = "{\"protocol\":\"TCP\"}".toCharArray();

        String made = table.canonical(text, 13, 3);

        assertThat(made).isEqualTo("TCP");
        assertThat(table.canonical(new String("TCP"))).isSameAs(made);
    }

    @Test
    void aSlotHoldsTheValueLookedUpLastAndAnyValueComesBackEqual() {
        for (int i = 0; i < 1_000; i++) {
            String value = "pod-" + i;
            assertThat(table.canonical(value)).isEqualTo(value);
            assertThat(table.canonical(value.toCharArray(), 0, value.length())).isEqualTo(value);
        }
        String last = table.canonical("pod-999");
        assertThat(table.canonical(new String("pod-999"))).isSameAs(last);
    }

    @Test
    void theHashOfCharactersIsTheHashOfTheirStringAtEveryLengthAndOffset() {
        String text = "xy/registry/pods/default/web-7d4b9c-é中ÿ-2026-12-07T07:43:58Z-10.0.3.7-IfNotPresent-TCP";
        char[] characters = text.toCharArray();
        for (int offset = 0; offset < 3; offset++) {
            for (int length = 0; length <= Math.min(StringTable.MAX_LENGTH, characters.length - offset); length++) {
                assertThat(StringTable.hash(characters, offset, length)).as("offset %d, length %d", offset, length)
                        .isEqualTo(text.substring(offset, offset + length).hashCode());
            }
        }
    }

    @Test
    void longValuesAndNullAreLeftAlone() {
        String long65 = "a".repeat(StringTable.MAX_LENGTH + 1);

        assertThat(table.canonical(long65)).isSameAs(long65);
        assertThat(table.canonical(new String(long65))).isNotSameAs(long65);
        assertThat(table.canonical(null)).isNull();
        assertThatThrownBy(() -> table.canonical(long65.toCharArray(), 0, long65.length())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StringTable(100)).isInstanceOf(IllegalArgumentException.class);
    }
}
