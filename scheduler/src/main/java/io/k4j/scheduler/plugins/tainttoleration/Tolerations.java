package io.k4j.scheduler.plugins.tainttoleration;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;

/** Upstream's toleration matching rules ({@code v1helper.TolerationsTolerateTaint}). Stateless and thread-safe. */
public final class Tolerations {
    private Tolerations() {}

    /** Whether one toleration tolerates the taint. */
    public static boolean tolerates(Toleration toleration, Taint taint) {
        String effect = toleration.getEffect();
        if (effect != null && !effect.isEmpty() && !effect.equals(taint.getEffect())) {
            return false;
        }
        String key = toleration.getKey();
        if (key != null && !key.isEmpty() && !key.equals(taint.getKey())) {
            return false;
        }
        String operator = toleration.getOperator();
        if (operator == null || operator.isEmpty() || operator.equals("Equal")) {
            return nullToEmpty(toleration.getValue()).equals(nullToEmpty(taint.getValue()));
        }
        return operator.equals("Exists");
    }

    public static boolean tolerates(List<Toleration> tolerations, Taint taint) {
        if (tolerations == null) {
            return false;
        }
        for (Toleration toleration : tolerations) {
            if (tolerates(toleration, taint)) {
                return true;
            }
        }
        return false;
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
