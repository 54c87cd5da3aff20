package io.k4j.controllerkit.informers;

import static io.k4j.controllerkit.informers.ManagedFieldsCut.withoutManagedFields;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ManagedFieldsCutTest {
    private static final String MANAGED = "[{\"manager\":\"k4j-kubelet\",\"fieldsV1\":{\"f:status\":{\"f:podIPs\":{\"k:{\\\"ip\\\":\\\"10.42.0.7\\\"}\":{}}}}}]";

    @Test
    void cutsTheMemberWherePlacedInTheMetadata() {
        assertThat(withoutManagedFields("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"managedFields\":" + MANAGED + ",\"uid\":\"u\"}}}"))
                .isEqualTo("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"uid\":\"u\"}}}");
        assertThat(withoutManagedFields("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":" + MANAGED + ",\"name\":\"a\"}}}"))
                .isEqualTo("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}");
        assertThat(withoutManagedFields("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"managedFields\":" + MANAGED + "}}}"))
                .isEqualTo("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}");
        assertThat(withoutManagedFields("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":" + MANAGED + "}}}"))
                .isEqualTo("{\"type\":\"ADDED\",\"object\":{\"metadata\":{}}}");
    }

    @Test
    void toleratesWhitespaceAndEscapesAroundIt() {
        assertThat(withoutManagedFields("{ \"type\" : \"MODIFIED\" , \"object\" : { \"metadata\" : { \"name\" : \"a\\\"}{\" , \"managedFields\" : "
                + MANAGED + " } } }"))
                .isEqualTo("{ \"type\" : \"MODIFIED\" , \"object\" : { \"metadata\" : { \"name\" : \"a\\\"}{\"  } } }");
        // A string that ends in an escaped backslash ends at the quote after it.
        assertThat(withoutManagedFields("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\\\\\",\"managedFields\":" + MANAGED + "}}}"))
                .isEqualTo("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\\\\\"}}}");
    }

    @Test
    void leavesOtherPlacesAndTextsThatOnlyMentionIt() {
        String[] unchanged = {
                // In a pod template's metadata (depth 5), in a value, in the event's own fields, under another key.
                "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"d\"},\"spec\":{\"template\":{\"metadata\":{\"managedFields\":[]}}}}}",
                "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"managedFields\",\"annotations\":{\"managedFields\":\"x\"}}}}",
                "{\"type\":\"ADDED\",\"managedFields\":[],\"object\":{\"metadata\":{}}}",
                "{\"type\":\"ADDED\",\"object\":{\"spec\":{\"managedFields\":[]}}}",
                "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"message\":\"\\\"managedFields\\\":[\"}}",
                // Malformed: an unterminated string or value reaches the parser as it came.
                "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":[{\"a\":\"b}]}}}",
                "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":[{}",
                "not json",
                "",
        };
        for (String text : unchanged) {
            assertThat(withoutManagedFields(text)).as(text).isEqualTo(text);
        }
    }
}
