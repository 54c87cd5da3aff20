package io.k4j.apiserver.nodejoin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.apiserver.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeJoinTokenTest {
    private static final X509Certificate CA = new TestCertificates().caCertificate();

    @TempDir
    Path directory;

    @Test
    void theFullFormNamesTheClusterCaAndRoundTrips() {
        NodeJoinToken token = NodeJoinToken.generate(CA);

        assertThat(token.format()).startsWith("K4J" + NodeJoinToken.caHash(CA) + "::node:");
        assertThat(NodeJoinToken.parse(token.format())).isEqualTo(token);
        assertThat(token.toString()).doesNotContain(token.secret());
    }

    @Test
    void isWrittenOnceOwnerOnlyAndReadBackOnTheNextStart() throws Exception {
        Path file = directory.resolve("token");

        NodeJoinToken created = NodeJoinToken.loadOrCreate(file, CA);
        NodeJoinToken loaded = NodeJoinToken.loadOrCreate(file, CA);

        assertThat(loaded).isEqualTo(created);
        assertThat(Files.readString(file).strip()).isEqualTo(created.format());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void acceptsTheFullFormAndTheBareSecret() {
        NodeJoinToken token = NodeJoinToken.generate(CA);

        assertThat(token.accepts(token.format())).isTrue();
        assertThat(token.accepts(token.secret())).isTrue();
        assertThat(token.accepts("  " + token.format() + "\n")).isTrue();
    }

    @Test
    void rejectsAnotherSecretOrAnotherClustersCa() {
        NodeJoinToken token = NodeJoinToken.generate(CA);
        NodeJoinToken otherCluster = new NodeJoinToken(Optional.of("0".repeat(64)), token.secret());

        assertThat(token.accepts(token.secret() + "x")).isFalse();
        assertThat(token.accepts(token.secret().substring(1))).isFalse();
        assertThat(token.accepts(otherCluster.format())).isFalse();
        assertThat(token.accepts("K4Jnothex::node:" + token.secret())).isFalse();
        assertThat(token.accepts("")).isFalse();
    }

    @Test
    void aMalformedCaHashIsRefused() {
        assertThatThrownBy(() -> NodeJoinToken.parse("K4Jabc::node:secret")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SHA-256");
    }
}
