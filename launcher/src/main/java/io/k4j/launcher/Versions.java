package io.k4j.launcher;

import picocli.CommandLine.IVersionProvider;

/** The versions k4j reports: its own and the Kubernetes API version it speaks. */
public final class Versions implements IVersionProvider {
    /** The Kubernetes release whose API k4j serves (what {@code /version} reports). */
    public static final String KUBERNETES_VERSION = "v1.32.4";
    public static final String K4J_VERSION = "0.1.0";

    @Override
    public String[] getVersion() {
        return new String[] {"k4j " + K4J_VERSION + " (Kubernetes " + KUBERNETES_VERSION + ")"};
    }
}
