package io.k4j.controllers;

import io.k4j.controllerkit.manager.ControllerDescriptor;
import java.util.List;

/**
 * Every controller k4j's controller manager knows, under upstream's {@code --controllers} names, in start order.
 * Each lives in its own package.
 */
public final class KubeControllers {
    private KubeControllers() {}

    public static List<ControllerDescriptor> descriptors() {
        return List.of(
        );
    }
}
