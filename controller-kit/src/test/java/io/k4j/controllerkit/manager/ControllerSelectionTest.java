package io.k4j.controllerkit.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ControllerSelectionTest {
    @Test
    void starEnablesDefaultsAndNamedEntriesWin() {
        ControllerSelection selection = new ControllerSelection(List.of("-job", "*", "bootstrapsigner"));

        assertThat(selection.isEnabled("replicaset", true)).isTrue();
        assertThat(selection.isEnabled("job", true)).isFalse();
        assertThat(selection.isEnabled("bootstrapsigner", false)).isTrue();
        assertThat(selection.isEnabled("tokencleaner", false)).isFalse();
    }

    @Test
    void withoutStarOnlyNamedControllersRun() {
        ControllerSelection selection = new ControllerSelection(List.of("replicaset"));

        assertThat(selection.isEnabled("replicaset", true)).isTrue();
        assertThat(selection.isEnabled("deployment", true)).isFalse();
    }

    @Test
    void unknownNamesAreRejectedWithTheKnownList() {
        ControllerSelection selection = new ControllerSelection(List.of("*", "-replicaset", "-nosuch"));

        assertThatThrownBy(() -> selection.validate(List.of("replicaset", "deployment")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--controllers: -nosuch is not in the list of known controllers: deployment, replicaset");
    }
}
