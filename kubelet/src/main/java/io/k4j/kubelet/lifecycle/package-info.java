/** Container lifecycle hooks (postStart, preStop) as upstream's handler runner: exec, httpGet and sleep actions. */
package io.k4j.kubelet.lifecycle;
