package io.k4j.kubelet.cni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.kubelet.host.HostCommand;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodEgressMasqueradeTest {
    private final List<String> commands = new ArrayList<>();
    private final Deque<HostCommand.Result> answers = new ArrayDeque<>();
    private final PodEgressMasquerade masquerade = new PodEgressMasquerade(command -> {
        commands.add(String.join(" ", command));
        return answers.removeFirst();
    });

    @Test
    void appendsTheRuleWhenTheCheckDoesNotFindIt() throws IOException {
        answers.add(new HostCommand.Result(1, "iptables: Bad rule (does a matching rule exist in that chain?)."));
        answers.add(new HostCommand.Result(0, ""));

        masquerade.ensure("10.42.0.0/24");

        String rule = "POSTROUTING -s 10.42.0.0/24 ! -d 10.42.0.0/24 -m addrtype ! --dst-type MULTICAST -m comment --comment "
                + PodEgressMasquerade.COMMENT + " -j MASQUERADE";
        assertThat(commands).containsExactly("iptables -w 5 -t nat -C " + rule, "iptables -w 5 -t nat -A " + rule);
    }

    @Test
    void aRuleThatIsThereIsNotAddedAgain() throws IOException {
        answers.add(new HostCommand.Result(0, ""));

        masquerade.ensure("10.42.0.0/24");

        assertThat(commands).hasSize(1).allMatch(command -> command.contains(" -C POSTROUTING "));
    }

    @Test
    void anIpv6PodCidrGoesToIp6tables() throws IOException {
        answers.add(new HostCommand.Result(1, ""));
        answers.add(new HostCommand.Result(0, ""));

        masquerade.ensure("fd42::/64");

        assertThat(commands).allMatch(command -> command.startsWith("ip6tables ") && command.contains("-s fd42::/64 ! -d fd42::/64 "));
    }

    @Test
    void aRefusedRuleIsAnErrorWithIptablesOwnWords() {
        answers.add(new HostCommand.Result(2, "iptables v1.8.9 (nf_tables): Couldn't load match `comment'"));

        assertThatThrownBy(() -> masquerade.ensure("10.42.0.0/24")).isInstanceOf(IOException.class)
                .hasMessageContaining("exit status 2").hasMessageContaining("Couldn't load match `comment'");
        assertThat(commands).hasSize(1);
    }
}
