package io.k4j.controllers.nodelifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.function.UnaryOperator;

/** The node lifecycle controller's writes; the API in production, a recording fake in unit tests. */
interface NodeWriter {
    /** Replaces the node's status conditions (PUT nodes/status). */
    void updateConditions(Node node, List<NodeCondition> conditions);

    /** Rewrites the node's taints from its latest version, retrying on conflicts. */
    void updateTaints(String nodeName, UnaryOperator<List<Taint>> change);

    /** Sets the pod's Ready condition to False (PUT pods/status). */
    void markPodNotReady(Pod pod, String now);
}
