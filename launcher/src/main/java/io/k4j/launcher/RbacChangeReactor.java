package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.ApiServer;
import io.k4j.apiserver.authorization.rbac.ClusterRoleAggregator;
import io.k4j.apiserver.authorization.rbac.RbacPolicySource;
import io.k4j.apiserver.registry.generic.GenericStore;
import io.k4j.apiserver.registry.generic.WatchCache;
import io.k4j.apiserver.registry.generic.WatchItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps RBAC decisions and aggregated ClusterRoles in step with the stored policy: every change to a Role,
 * RoleBinding, ClusterRole or ClusterRoleBinding drops the authorizer's cached snapshot at once, and every
 * ClusterRole change re-runs aggregation (upstream's clusterrole-aggregation controller, until the controller
 * manager hosts it). Watches the apiserver's watch caches in-process, so a change is seen after the cache has it.
 */
final class RbacChangeReactor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("rbac");
    private static final List<GroupVersionResource> POLICY_RESOURCES = List.of(
            RbacPolicySource.ROLES, RbacPolicySource.ROLE_BINDINGS, RbacPolicySource.CLUSTER_ROLES, RbacPolicySource.CLUSTER_ROLE_BINDINGS);

    private final List<WatchCache.Watcher> watchers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;

    RbacChangeReactor(ApiServer apiServer, RbacPolicySource policy, ClusterRoleAggregator aggregator) {
        requireNonNull(apiServer, "apiServer is null");
        requireNonNull(policy, "policy is null");
        requireNonNull(aggregator, "aggregator is null");
        for (GroupVersionResource resource : POLICY_RESOURCES) {
            GenericStore store = apiServer.store(resource).orElseThrow(() -> new IllegalStateException(resource + " is not served"));
            WatchCache.Watcher watcher = store.cache().watchFrom(store.cache().revision(), object -> true);
            watchers.add(watcher);
            boolean clusterRoles = resource.equals(RbacPolicySource.CLUSTER_ROLES);
            threads.add(Thread.ofVirtual().name("rbac-" + resource.resource()).start(() -> react(watcher, policy, clusterRoles ? aggregator : null)));
        }
    }

    private void react(WatchCache.Watcher watcher, RbacPolicySource policy, ClusterRoleAggregator aggregator) {
        while (!closed) {
            try {
                WatchItem item = watcher.poll(Duration.ofSeconds(1));
                switch (item) {
                    case null -> {}
                    case WatchItem.Event ignored -> {
                        policy.invalidate();
                        if (aggregator != null) {
                            aggregator.reconcile();
                        }
                    }
                    case WatchItem.Bookmark ignored -> {}
                    case WatchItem.Ended ignored -> {
                        return;
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // The next change retries; aggregation is idempotent.
                LOG.warn("reacting to an RBAC change failed: {}", e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        watchers.forEach(WatchCache.Watcher::close);
        threads.forEach(Thread::interrupt);
    }
}
