package io.k4j.api.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.resource.GroupVersionKind;
import org.junit.jupiter.api.Test;

class CreatedFieldsTest {
    private static final FieldManager.Target CONFIG_MAPS = new FieldManager.Target(new GroupVersionKind("", "v1", "ConfigMap"), "", new FieldSet());

    private final CreatedFields created = new CreatedFields(8);

    @Test
    void keepsAnObjectsSetFromItsSecondCreateAndMatchesItApartFromIdentity() {
        FieldSet fields = FieldManager.topLevelFields("data");
        ObjectNode first = configMap("a", "value");
        int hash = CreatedFields.hash(first);
        created.remember(hash, first, CONFIG_MAPS, "kubectl", fields);
        assertThat(created.find(hash, first, CONFIG_MAPS, "kubectl")).isNull();

        created.remember(hash, configMap("b", "value"), CONFIG_MAPS, "kubectl", fields);
        ObjectNode third = configMap("c", "value");
        assertThat(CreatedFields.hash(third)).isEqualTo(hash);
        assertThat(created.find(hash, third, CONFIG_MAPS, "kubectl").toFieldsV1()).isEqualTo(fields.toFieldsV1());
        assertThat(created.find(hash, third, CONFIG_MAPS, "other")).isNull();

        ObjectNode otherValue = configMap("c", "other value");
        assertThat(created.find(CreatedFields.hash(otherValue), otherValue, CONFIG_MAPS, "kubectl")).isNull();
        // The same hash with another object (a collision) is no match either.
        assertThat(created.find(hash, otherValue, CONFIG_MAPS, "kubectl")).isNull();
    }

    @Test
    void countsWhichIdentityFieldsAnObjectHas() {
        ObjectNode withoutUid = configMap("a", "value");
        ((ObjectNode) withoutUid.get("metadata")).remove("uid");
        assertThat(CreatedFields.hash(withoutUid)).isNotEqualTo(CreatedFields.hash(configMap("a", "value")));
    }

    @Test
    void doesNotKeepLargeObjects() {
        FieldSet fields = FieldManager.topLevelFields("data");
        ObjectNode large = configMap("a", "x".repeat(20_000));
        int hash = CreatedFields.hash(large);
        created.remember(hash, large, CONFIG_MAPS, "kubectl", fields);
        created.remember(hash, configMap("b", "x".repeat(20_000)), CONFIG_MAPS, "kubectl", fields);
        assertThat(created.find(hash, configMap("c", "x".repeat(20_000)), CONFIG_MAPS, "kubectl")).isNull();
    }

    private static ObjectNode configMap(String name, String value) {
        return (ObjectNode) Json.read(("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
                + "\",\"namespace\":\"default\",\"uid\":\"uid-" + name + "\"},\"data\":{\"key\":\"" + value + "\"}}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
