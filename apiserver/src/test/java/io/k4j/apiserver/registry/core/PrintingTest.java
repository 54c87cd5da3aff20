package io.k4j.apiserver.registry.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrintingTest {
    @Test
    void formatsLabelsSortedOrNone() {
        assertThat(Printing.formatLabels(Json.object("{'b':'2','a':'1'}"))).isEqualTo("a=1,b=2");
        assertThat(Printing.formatLabels(Json.object("{}"))).isEqualTo("<none>");
    }
}
