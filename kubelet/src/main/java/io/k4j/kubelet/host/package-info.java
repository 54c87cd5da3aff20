/** Short commands the node agent runs on its host ({@code mount}, {@code iptables}, {@code stat}). */
package io.k4j.kubelet.host;
