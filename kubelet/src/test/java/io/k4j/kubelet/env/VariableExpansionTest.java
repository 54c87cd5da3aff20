package io.k4j.kubelet.env;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VariableExpansionTest {
    private static final Map<String, String> VALUES = Map.of("VAR_A", "A", "VAR_B", "B", "EMPTY", "");

    private static String expand(String input) {
        return VariableExpansion.expand(input, VALUES::get);
    }

    @Test
    void replacesDefinedReferences() {
        assertThat(expand("$(VAR_A)-$(VAR_B)")).isEqualTo("A-B");
        assertThat(expand("x$(VAR_A)y")).isEqualTo("xAy");
        assertThat(expand("$(EMPTY)")).isEmpty();
    }

    @Test
    void leavesUndefinedReferencesAsWritten() {
        assertThat(expand("$(UNKNOWN)")).isEqualTo("$(UNKNOWN)");
        assertThat(expand("$(VAR_A)$(UNKNOWN)")).isEqualTo("A$(UNKNOWN)");
    }

    @Test
    void escapesAndLoneOperatorsAsUpstream() {
        assertThat(expand("$$(VAR_A)")).isEqualTo("$(VAR_A)");
        assertThat(expand("$$$(VAR_A)")).isEqualTo("$A");
        assertThat(expand("$VAR_A")).isEqualTo("$VAR_A");
        assertThat(expand("$(VAR_A")).isEqualTo("$(VAR_A");
        assertThat(expand("trailing$")).isEqualTo("trailing$");
        assertThat(expand("$()")).isEqualTo("$()");
    }

    @Test
    void expandsCommandsWithTheEnvironment() {
        List<EnvironmentVariable> environment = List.of(new EnvironmentVariable("MESSAGE", "hello"));
        assertThat(VariableExpansion.expandAll(List.of("echo", "$(MESSAGE)", "$(OTHER)"), environment))
                .containsExactly("echo", "hello", "$(OTHER)");
    }
}
