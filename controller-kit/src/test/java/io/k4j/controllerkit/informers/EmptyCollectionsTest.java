package io.k4j.controllerkit.informers;

import static io.k4j.controllerkit.informers.EmptyCollections.shareEmptyCollections;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EmptyCollectionsTest {
    @Test
    void sharesTheObjectsOwnEmptyListsAndMapsOnly() {
        Container container = new Container();
        PodSpec spec = new PodSpec();
        spec.setNodeName("node-1");
        spec.setContainers(new ArrayList<>(List.of(container)));
        spec.setNodeSelector(new LinkedHashMap<>(Map.of("disk", "ssd")));

        assertThat(shareEmptyCollections(spec)).isSameAs(spec);

        assertThat(spec.getVolumes()).isSameAs(Collections.emptyList());
        assertThat(spec.getTolerations()).isSameAs(Collections.emptyList());
        assertThat(spec.getOverhead()).isSameAs(Collections.emptyMap());
        assertThat(spec.getAdditionalProperties()).isSameAs(Collections.emptyMap());
        assertThat(spec.getContainers()).containsExactly(container);
        assertThat(spec.getNodeSelector()).containsExactly(Map.entry("disk", "ssd"));
        assertThat(spec.getNodeName()).isEqualTo("node-1");
        // The objects it holds keep theirs.
        assertThat(container.getEnv()).isNotSameAs(Collections.emptyList());
        assertThat(spec).isEqualTo(new PodSpecBuilder().withNodeName("node-1").withContainers(new Container())
                .withNodeSelector(Map.of("disk", "ssd")).build());
    }

    @Test
    void trimsTheObjectsOwnListsThatHoldElements() {
        TrimRecordingList<Container> containers = new TrimRecordingList<>(List.of(new Container()));
        PodSpec spec = new PodSpec();
        spec.setContainers(containers);

        shareEmptyCollections(spec);

        assertThat(spec.getContainers()).isSameAs(containers).hasSize(1);
        assertThat(containers.trimmed).isTrue();
    }

    /** An ArrayList that records being trimmed: its capacity cannot be read from outside. */
    private static final class TrimRecordingList<E> extends ArrayList<E> {
        boolean trimmed;

        TrimRecordingList(List<E> elements) {
            super(elements);
        }

        @Override
        public void trimToSize() {
            trimmed = true;
            super.trimToSize();
        }
    }
}
