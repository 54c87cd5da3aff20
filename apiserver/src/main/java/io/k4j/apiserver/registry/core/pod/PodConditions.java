package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.core.Trees;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Sets pod conditions as upstream's {@code UpdatePodCondition}: the transition time changes only with the status. */
final class PodConditions {
    private PodConditions() {}

    static void set(ObjectNode pod, String type, String status, Instant now) {
        ArrayNode conditions = Trees.array(Trees.object(pod, "status"), "conditions");
        String timestamp = now.truncatedTo(ChronoUnit.SECONDS).toString();
        for (int index = 0; index < conditions.size(); index++) {
            if (conditions.get(index) instanceof ObjectNode condition && Trees.text(condition, "type").equals(type)) {
                if (!Trees.text(condition, "status").equals(status)) {
                    condition.put("status", status);
                    condition.put("lastTransitionTime", timestamp);
                }
                return;
            }
        }
        ObjectNode condition = conditions.addObject();
        condition.put("type", type);
        condition.put("status", status);
        condition.putNull("lastProbeTime");
        condition.put("lastTransitionTime", timestamp);
    }
}
