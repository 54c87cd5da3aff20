package io.k4j.apiserver.admission;

/**
 * An admission plugin. A plugin mutates ({@link MutatingAdmissionPlugin}), validates
 * ({@link ValidatingAdmissionPlugin}) or both. The order of plugins is one explicit list
 * ({@code AdmissionPlugins.ORDERED}); a plugin rejects by throwing a {@code StatusException}, which stops the
 * chain and stores nothing. Implementations are thread-safe.
 */
public interface AdmissionPlugin {
    /** The plugin's upstream name, e.g. {@code NamespaceLifecycle}. */
    String name();

    /** Whether this plugin wants to see the operation; it is not called otherwise. */
    boolean handles(Operation operation);
}
