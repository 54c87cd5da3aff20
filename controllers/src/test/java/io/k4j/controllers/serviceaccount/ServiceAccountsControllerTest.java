package io.k4j.controllers.serviceaccount;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServiceAccountsControllerTest {
    private final CacheImpl<Namespace> namespaces = new CacheImpl<>();
    private final CacheImpl<ServiceAccount> accounts = new CacheImpl<>();
    private final List<String> created = new ArrayList<>();
    private final ServiceAccountsController controller = new ServiceAccountsController(new Lister<>(namespaces), new Lister<>(accounts),
            account -> created.add(account.getMetadata().getNamespace() + "/" + account.getMetadata().getName()));

    @AfterEach
    void shutDown() {
        controller.close();
    }

    @Test
    void createsTheDefaultAccountInAnActiveNamespaceThatLacksIt() {
        namespaces.put(namespace("team", "Active", false));
        controller.sync("team");
        assertThat(created).containsExactly("team/default");

        accounts.put(new ServiceAccountBuilder().withNewMetadata().withNamespace("team").withName("default").endMetadata().build());
        controller.sync("team");
        assertThat(created).containsExactly("team/default");
    }

    @Test
    void leavesTerminatingAndMissingNamespacesAlone() {
        namespaces.put(namespace("doomed", "Terminating", true));
        controller.sync("doomed");
        controller.sync("missing");
        assertThat(created).isEmpty();
    }

    private static Namespace namespace(String name, String phase, boolean deleting) {
        return new NamespaceBuilder().withNewMetadata().withName(name).withDeletionTimestamp(deleting ? "2026-01-01T00:00:00Z" : null).endMetadata()
                .withNewStatus().withPhase(phase).endStatus().build();
    }
}
