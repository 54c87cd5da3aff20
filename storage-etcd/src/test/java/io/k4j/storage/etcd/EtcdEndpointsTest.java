package io.k4j.storage.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;

import org.junit.jupiter.api.Test;

class EtcdEndpointsTest {
    @Test
    void etcdSchemeListsMembersAsHostPort() {
        assertThat(EtcdEndpoints.parse("etcd://127.0.0.1:2379")).containsExactly(URI.create("http://127.0.0.1:2379"));
        assertThat(EtcdEndpoints.parse("etcd://10.0.0.1:2379, 10.0.0.2:2379,etcd-3:2379")).containsExactly(
                URI.create("http://10.0.0.1:2379"), URI.create("http://10.0.0.2:2379"), URI.create("http://etcd-3:2379"));
        assertThat(EtcdEndpoints.parse("ETCD://[::1]:2379")).containsExactly(URI.create("http://[::1]:2379"));
    }

    @Test
    void httpUrlsAreAcceptedInEtcdsOwnForm() {
        assertThat(EtcdEndpoints.parse("http://127.0.0.1:2379/")).containsExactly(URI.create("http://127.0.0.1:2379"));
        assertThat(EtcdEndpoints.parse("http://a:1,http://b:2")).containsExactly(URI.create("http://a:1"), URI.create("http://b:2"));
    }

    @Test
    void malformedEndpointsAreRejectedWithTheReason() {
        assertThatThrownBy(() -> EtcdEndpoints.parse("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> EtcdEndpoints.parse("127.0.0.1:2379")).hasMessageContaining("no etcd:// or http:// scheme");
        assertThatThrownBy(() -> EtcdEndpoints.parse("etcd://127.0.0.1")).hasMessageContaining("expected host:port");
        assertThatThrownBy(() -> EtcdEndpoints.parse("etcd://a:1,")).hasMessageContaining("invalid member ''");
        assertThatThrownBy(() -> EtcdEndpoints.parse("etcd://a:1/path")).hasMessageContaining("invalid member");
        assertThatThrownBy(() -> EtcdEndpoints.parse("http://a:1,b:2")).hasMessageContaining("mixes URL forms");
        assertThatThrownBy(() -> EtcdEndpoints.parse("https://a:1")).hasMessageContaining("TLS");
    }
}
