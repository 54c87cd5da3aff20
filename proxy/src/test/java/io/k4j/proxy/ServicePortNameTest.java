package io.k4j.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ServicePortNameTest {
    @Test
    void ordersAsItsStringForm() {
        List<ServicePortName> names = new ArrayList<>(List.of(
                new ServicePortName("a", "b", ""), new ServicePortName("a", "b", "c"), new ServicePortName("a", "b-c", ""),
                new ServicePortName("a-b", "c", ""), new ServicePortName("a", "b.c", "d"), new ServicePortName("ab", "", ""),
                new ServicePortName("a", "bb", "0"), new ServicePortName("a", "b", "a")));
        Random random = new Random(3);
        String alphabet = "ab-.0z";
        for (int i = 0; i < 300; i++) {
            names.add(new ServicePortName(word(random, alphabet, 1), word(random, alphabet, 1), word(random, alphabet, 0)));
        }

        for (ServicePortName first : names) {
            for (ServicePortName second : names) {
                assertThat(Integer.signum(first.compareTo(second)))
                        .as("%s <=> %s", first, second)
                        .isEqualTo(Integer.signum(first.toString().compareTo(second.toString())));
            }
        }
    }

    private static String word(Random random, String alphabet, int minimumLength) {
        int length = minimumLength + random.nextInt(4);
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < length; i++) {
            word.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return word.toString();
    }
}
