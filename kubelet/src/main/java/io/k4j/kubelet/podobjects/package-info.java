/**
 * The API objects a pod's configuration refers to, read with the node's identity as upstream's kubelet does
 * (ConfigMaps, Secrets, service-account tokens through TokenRequest, the Services for environment variables).
 */
package io.k4j.kubelet.podobjects;
