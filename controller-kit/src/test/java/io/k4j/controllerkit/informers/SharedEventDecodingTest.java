package io.k4j.controllerkit.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SharedEventDecodingTest {
    private static final String ADDED = event("ADDED", "web-1", "41");
    private static final String MODIFIED = event("MODIFIED", "web-1", "42");

    @Test
    void decodesEachTextOnceForAllSerializationsThatShareIt() {
        SharedEventDecoding shared = new SharedEventDecoding(64);
        StreamingSerialization scheduler = new StreamingSerialization(true, shared);
        StreamingSerialization controllerManager = new StreamingSerialization(true, shared);

        WatchEvent first = scheduler.unmarshal(ADDED, WatchEvent.class);
        WatchEvent second = controllerManager.unmarshal(ADDED, WatchEvent.class);

        assertThat(second.getObject()).isSameAs(first.getObject());
        assertThat(second).isNotSameAs(first);
        assertThat(second.getType()).isEqualTo("ADDED");
        assertThat(((Pod) second.getObject()).getMetadata().getResourceVersion()).isEqualTo("41");
    }

    @Test
    void anEventOfTheSameObjectUnderAnotherTypeTakesItsObjectAndKeepsItsOwnType() {
        SharedEventDecoding shared = new SharedEventDecoding(64);
        StreamingSerialization scheduler = new StreamingSerialization(true, shared);
        StreamingSerialization nodeSimulator = new StreamingSerialization(true, shared);

        WatchEvent modified = scheduler.unmarshal(event("MODIFIED", "web-1", "41"), WatchEvent.class);
        WatchEvent added = nodeSimulator.unmarshal(ADDED, WatchEvent.class);

        assertThat(added.getObject()).isSameAs(modified.getObject());
        assertThat(added.getType()).isEqualTo("ADDED");
        assertThat(modified.getType()).isEqualTo("MODIFIED");
    }

    @Test
    void aTextThatDoesNotStartWithItsTypeIsDecodedEachTime() {
        SharedEventDecoding shared = new SharedEventDecoding(64);
        AtomicInteger decodings = new AtomicInteger();
        StreamingSerialization serialization = new StreamingSerialization(true);
        String objectFirst = """
                {"object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"41"}},
                 "type":"ADDED"}""";

        WatchEvent first = shared.event(objectFirst, text -> count(decodings, serialization, text));
        WatchEvent second = shared.event(objectFirst, text -> count(decodings, serialization, text));

        assertThat(decodings).hasValue(2);
        assertThat(second.getObject()).isNotSameAs(first.getObject());
        assertThat(second.getType()).isEqualTo("ADDED");
        assertThat(((Pod) second.getObject()).getMetadata().getResourceVersion()).isEqualTo("41");
    }

    @Test
    void decodesADifferentTextAgain() {
        SharedEventDecoding shared = new SharedEventDecoding(64);
        StreamingSerialization serialization = new StreamingSerialization(true, shared);

        WatchEvent added = serialization.unmarshal(ADDED, WatchEvent.class);
        WatchEvent modified = serialization.unmarshal(MODIFIED, WatchEvent.class);

        assertThat(modified.getObject()).isNotSameAs(added.getObject());
        assertThat(modified.getType()).isEqualTo("MODIFIED");
        assertThat(((Pod) modified.getObject()).getMetadata().getResourceVersion()).isEqualTo("42");
    }

    @Test
    void aTextThatTakesAnotherTextsSlotIsDecodedAgainAfterwards() {
        SharedEventDecoding shared = new SharedEventDecoding(1);
        AtomicInteger decodings = new AtomicInteger();
        StreamingSerialization serialization = new StreamingSerialization(true);

        shared.event(ADDED, text -> count(decodings, serialization, text));
        shared.event(MODIFIED, text -> count(decodings, serialization, text));
        WatchEvent again = shared.event(ADDED, text -> count(decodings, serialization, text));

        assertThat(decodings).hasValue(3);
        assertThat(((Pod) again.getObject()).getMetadata().getResourceVersion()).isEqualTo("41");
    }

    @Test
    void doesNotRememberEventsItCouldNotDecode() {
        SharedEventDecoding shared = new SharedEventDecoding(8);
        AtomicInteger decodings = new AtomicInteger();

        shared.event(ADDED, text -> {
            decodings.incrementAndGet();
            return null;
        });
        WatchEvent decoded = shared.event(ADDED, text -> count(decodings, new StreamingSerialization(true), text));

        assertThat(decodings).hasValue(2);
        assertThat(decoded.getObject()).isInstanceOf(Pod.class);
    }

    @Test
    void refusesASizeThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> new SharedEventDecoding(1000)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
    }

    private static WatchEvent count(AtomicInteger decodings, StreamingSerialization serialization, String text) {
        decodings.incrementAndGet();
        return serialization.unmarshal(text, WatchEvent.class);
    }

    private static String event(String type, String name, String resourceVersion) {
        return """
                {"type":"%s","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"%s","namespace":"default","resourceVersion":"%s"},
                 "spec":{"containers":[{"name":"app","image":"nginx"}]}}}""".formatted(type, name, resourceVersion);
    }
}
