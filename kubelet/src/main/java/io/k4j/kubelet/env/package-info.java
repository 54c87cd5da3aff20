/**
 * A container's environment as upstream's kubelet builds it: env (value, fieldRef, resourceFieldRef,
 * configMapKeyRef, secretKeyRef), envFrom, {@code $(VAR)} expansion and the service environment variables.
 */
package io.k4j.kubelet.env;
