package io.k4j.apiserver.registry.core.serviceaccount;

import static io.k4j.apiserver.registry.core.Json.object;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

class ServiceAccountStrategyTest {
    private final ServiceAccountStrategy strategy = new ServiceAccountStrategy(InstantSource.fixed(Instant.parse("2026-01-01T01:00:00Z")));

    @Test
    void onlyMetadataIsValidated() {
        ObjectNode account = object("{'metadata':{'name':'builder'},'secrets':[{'name':'token'}],'automountServiceAccountToken':false}");
        assertThat(strategy.validate(account).isEmpty()).isTrue();
        assertThat(strategy.validateUpdate(object("{'metadata':{'name':'builder'}}"), account).isEmpty()).isTrue();
    }

    @Test
    void updatesKeepWhatTheClientSent() {
        ObjectNode old = object("{'metadata':{'name':'builder'},'secrets':[{'name':'a'}]}");
        ObjectNode updated = object("{'metadata':{'name':'builder'},'secrets':[{'name':'b'}],'imagePullSecrets':[{'name':'registry'}]}");
        strategy.prepareForUpdate(updated, old);
        assertThat(updated).isEqualTo(object("{'metadata':{'name':'builder'},'secrets':[{'name':'b'}],'imagePullSecrets':[{'name':'registry'}]}"));
    }

    @Test
    void printsTheNumberOfSecrets() {
        assertThat(strategy.tableColumns()).extracting(TableColumn::name).containsExactly("Name", "Secrets", "Age");
        ObjectNode account = object("{'metadata':{'name':'default','creationTimestamp':'2026-01-01T00:00:00Z'},'secrets':[{'name':'a'},{'name':'b'}]}");
        assertThat(strategy.tableRow(account)).containsExactly("default", 2L, "60m");
        assertThat(strategy.tableRow(object("{'metadata':{'name':'default','creationTimestamp':'2026-01-01T00:00:00Z'}}")).get(1)).isEqualTo(0L);
    }
}
