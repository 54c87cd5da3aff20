package io.k4j.apiserver.admission;

import io.k4j.apiserver.admission.plugin.defaulttolerationseconds.DefaultTolerationSeconds;
import io.k4j.apiserver.admission.plugin.limitranger.LimitRanger;
import io.k4j.apiserver.admission.plugin.namespacelifecycle.NamespaceLifecycle;
import io.k4j.apiserver.admission.plugin.noderestriction.NodeRestriction;
import io.k4j.apiserver.admission.plugin.priority.Priority;
import io.k4j.apiserver.admission.plugin.resourcequota.ResourceQuota;
import io.k4j.apiserver.admission.plugin.serviceaccount.ServiceAccount;
import io.k4j.apiserver.authorization.rbac.EscalationCheck;
import io.k4j.apiserver.authorization.rbac.RbacEscalationAdmission;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.List;

/**
 * The one ordered list of admission plugins. Order matters and follows upstream's: namespace checks first so
 * nothing else runs for a missing namespace, defaults before the plugins that read them, and ResourceQuota last
 * so that it charges only requests every other plugin accepted. {@link RbacEscalationAdmission} is no upstream
 * admission plugin (upstream checks RBAC escalation in its RBAC storage, before admission validates); it runs
 * first among the validating plugins to come as close to that as the chain allows.
 */
public final class AdmissionPlugins {
    /** Plugin names in the order they run (mutating phase, then validating phase, each in this order). */
    public static final List<String> ORDERED = List.of(
            NamespaceLifecycle.NAME,
            RbacEscalationAdmission.NAME,
            LimitRanger.NAME,
            ServiceAccount.NAME,
            NodeRestriction.NAME,
            Priority.NAME,
            DefaultTolerationSeconds.NAME,
            ResourceQuota.NAME);

    private AdmissionPlugins() {}

    /**
     * Every plugin, in {@link #ORDERED} order, reading what it needs through {@code registry}.
     *
     * @param escalation RBAC's privilege-escalation check, applied to writes of roles and bindings
     */
    public static List<AdmissionPlugin> create(Registry registry, EscalationCheck escalation) {
        List<AdmissionPlugin> plugins = List.of(
                new NamespaceLifecycle(registry),
                new RbacEscalationAdmission(escalation),
                new LimitRanger(registry),
                new ServiceAccount(registry),
                new NodeRestriction(registry),
                new Priority(registry),
                new DefaultTolerationSeconds(),
                new ResourceQuota(registry));
        if (!plugins.stream().map(AdmissionPlugin::name).toList().equals(ORDERED)) {
            throw new IllegalStateException("admission plugins out of order: " + plugins.stream().map(AdmissionPlugin::name).toList());
        }
        return plugins;
    }
}
