/** One worker per pod: syncs of a pod never overlap, and the events that arrive during a sync coalesce into one more. */
package io.k4j.kubelet.podworkers;
