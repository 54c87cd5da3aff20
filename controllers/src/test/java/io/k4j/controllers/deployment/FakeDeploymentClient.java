package io.k4j.controllers.deployment;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Applies writes to the informer caches directly, as if the watch had delivered them at once. Thread-safe. */
final class FakeDeploymentClient implements DeploymentClient {
    private final CacheImpl<Deployment> deployments;
    private final CacheImpl<ReplicaSet> replicaSets;
    private final InstantSource clock;
    private final List<String> calls = new ArrayList<>();
    private int createFailures;

    FakeDeploymentClient(CacheImpl<Deployment> deployments, CacheImpl<ReplicaSet> replicaSets, InstantSource clock) {
        this.deployments = deployments;
        this.replicaSets = replicaSets;
        this.clock = clock;
    }

    @Override
    public Optional<Deployment> getDeployment(String namespace, String name) {
        return Optional.ofNullable(deployments.getByKey(namespace + "/" + name));
    }

    @Override
    public synchronized Deployment updateDeploymentStatus(Deployment deployment) {
        Deployment stored = new DeploymentBuilder(deployment).build();
        stored.getMetadata().setResourceVersion(next(deployment.getMetadata().getResourceVersion()));
        deployments.put(stored);
        calls.add("updateStatus " + deployment.getMetadata().getName());
        return stored;
    }

    @Override
    public synchronized ReplicaSet createReplicaSet(ReplicaSet replicaSet) {
        if (createFailures > 0) {
            createFailures--;
            throw new KubernetesClientException("replicasets \"" + replicaSet.getMetadata().getName() + "\" is forbidden: exceeded quota");
        }
        ReplicaSet stored = new ReplicaSetBuilder(replicaSet).build();
        stored.getMetadata().setUid(UUID.randomUUID().toString());
        stored.getMetadata().setResourceVersion("1");
        stored.getMetadata().setGeneration(1L);
        stored.getMetadata().setCreationTimestamp(clock.instant().toString());
        replicaSets.put(stored);
        calls.add("create " + stored.getMetadata().getName() + " " + stored.getSpec().getReplicas());
        return stored;
    }

    @Override
    public synchronized ReplicaSet updateReplicaSet(ReplicaSet replicaSet) {
        ReplicaSet stored = new ReplicaSetBuilder(replicaSet).build();
        stored.getMetadata().setResourceVersion(next(replicaSet.getMetadata().getResourceVersion()));
        replicaSets.put(stored);
        calls.add("update " + stored.getMetadata().getName() + " " + stored.getSpec().getReplicas());
        return stored;
    }

    @Override
    public synchronized boolean deleteReplicaSet(String namespace, String name) {
        ReplicaSet existing = replicaSets.getByKey(namespace + "/" + name);
        calls.add("delete " + name);
        if (existing == null) {
            return false;
        }
        replicaSets.remove(existing);
        return true;
    }

    @Override
    public synchronized void patchReplicaSet(String namespace, String name, String strategicMergePatch) {
        calls.add("patch " + name + " " + strategicMergePatch);
    }

    synchronized void failCreates(int count) {
        createFailures = count;
    }

    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    synchronized void clear() {
        calls.clear();
    }

    private static String next(String resourceVersion) {
        return resourceVersion == null ? "1" : Long.toString(Long.parseLong(resourceVersion) + 1);
    }
}
