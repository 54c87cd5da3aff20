package io.k4j.apiserver.registry.core.serviceaccount;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ResourceType;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.CoreResources;
import io.k4j.apiserver.registry.core.Printing;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.ResourceStrategy;
import io.k4j.apiserver.registry.generic.TableColumn;
import java.time.InstantSource;
import java.util.List;

/**
 * The rules of service accounts, as upstream's {@code strategy}: nothing beyond the common metadata (names are DNS
 * subdomains, which the store checks). Thread-safe.
 */
public final class ServiceAccountStrategy implements ResourceStrategy {
    private static final ResourceType TYPE = CoreResources.type("serviceaccounts");
    static final List<TableColumn> COLUMNS = List.of(
            TableColumn.nameColumn(),
            TableColumn.integer("Secrets", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."),
            TableColumn.ageColumn());

    private final InstantSource clock;

    public ServiceAccountStrategy(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public ResourceType type() {
        return TYPE;
    }

    @Override
    public void prepareForCreate(ObjectNode serviceAccount) {}

    @Override
    public void prepareForUpdate(ObjectNode newServiceAccount, ObjectNode oldServiceAccount) {}

    @Override
    public FieldErrors validate(ObjectNode serviceAccount) {
        return new FieldErrors();
    }

    @Override
    public FieldErrors validateUpdate(ObjectNode newServiceAccount, ObjectNode oldServiceAccount) {
        return new FieldErrors();
    }

    @Override
    public List<TableColumn> tableColumns() {
        return COLUMNS;
    }

    @Override
    public List<Object> tableRow(ObjectNode serviceAccount) {
        return List.of(
                Trees.text(serviceAccount, "metadata", "name"),
                (long) Trees.size(serviceAccount, "secrets"),
                Printing.since(Trees.at(serviceAccount, "metadata", "creationTimestamp"), clock.instant()));
    }
}
