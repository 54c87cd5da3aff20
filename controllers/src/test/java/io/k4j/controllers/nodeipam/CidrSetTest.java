package io.k4j.controllers.nodeipam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CidrSetTest {
    @Test
    void handsOutNodeCidrsInOrderAndNeverTwice() {
        CidrSet set = CidrSet.parse("10.42.0.0/16", 24);

        assertThat(set.capacity()).isEqualTo(256);
        assertThat(set.occupy("10.42.1.0/24")).isTrue();
        assertThat(set.allocateNext()).contains("10.42.0.0/24");
        assertThat(set.allocateNext()).contains("10.42.2.0/24");
        assertThat(set.allocated()).isEqualTo(3);
    }

    @Test
    void releasedCidrsComeBackOnlyAfterTheRestAreUsed() {
        CidrSet set = CidrSet.parse("10.42.0.0/23", 24);
        String first = set.allocateNext().orElseThrow();
        set.release(first);

        assertThat(set.allocateNext()).contains("10.42.1.0/24");
        assertThat(set.allocateNext()).contains(first);
        assertThat(set.allocateNext()).isEmpty();
    }

    @Test
    void foreignCidrsAreNotOccupied() {
        CidrSet set = CidrSet.parse("10.42.0.0/16", 24);

        assertThat(set.occupy("10.43.0.0/24")).isFalse();
        assertThat(set.occupy("10.42.0.0/25")).isFalse();
        assertThat(set.occupy("10.42.0.128/24")).isFalse();
        assertThat(set.occupy("garbage")).isFalse();
    }

    @Test
    void badClusterCidrsAreRejectedWithAClearMessage() {
        assertThatThrownBy(() -> CidrSet.parse("10.42.0.0", 24)).hasMessageContaining("no prefix length");
        assertThatThrownBy(() -> CidrSet.parse("10.42.0.0/16", 8)).hasMessageContaining("does not fit");
        assertThatThrownBy(() -> CidrSet.parse("10.0.0.0/8", 30)).hasMessageContaining("more than 2^16");
        assertThatThrownBy(() -> CidrSet.parse("example.com/16", 24)).hasMessageContaining("not a valid CIDR");
    }
}
