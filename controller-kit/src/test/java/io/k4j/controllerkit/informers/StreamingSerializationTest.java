package io.k4j.controllerkit.informers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class StreamingSerializationTest {
    private static final String METADATA = """
            {"name":"web-1","namespace":"default","uid":"0b6f9a5e-3c1d-4f7e-9a43-1f0e2d3c4b5a","resourceVersion":"42",
             "labels":{"app":"web"},"creationTimestamp":"2026-11-22T10:00:00Z",
             "managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-22T10:00:00Z",
               "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
               "f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:image":{},"f:name":{}}}}}}],
             "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"1","controller":true}]}""";
    private static final String SPEC = """
            {"nodeName":"node-1","containers":[{"name":"app","image":"nginx:1.25","ports":[{"containerPort":80,"protocol":"TCP"}],
             "resources":{"requests":{"cpu":"100m","memory":"16Mi"}}}],"tolerations":[{"key":"k","operator":"Exists","tolerationSeconds":300}]}""";
    private static final String STATUS = """
            {"phase":"Running","podIP":"10.42.0.7","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-22T10:00:01Z"}],
             "containerStatuses":[{"name":"app","ready":true,"restartCount":0,"image":"nginx:1.25","imageID":"","started":true,
               "state":{"running":{"startedAt":"2026-11-22T10:00:01Z"}}}]}""";

    private final KubernetesSerialization fabric8 = new KubernetesSerialization();

    @Test
    void decodesAPodEventAsFabric8Does() {
        String event = event("MODIFIED", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":" + METADATA + ",\"spec\":" + SPEC + ",\"status\":" + STATUS + "}");

        WatchEvent decoded = new StreamingSerialization(false).unmarshal(event, WatchEvent.class);

        assertThat(decoded.getObject()).isInstanceOf(Pod.class);
        assertThat(decoded).isEqualTo(fabric8.unmarshal(event, WatchEvent.class));
        assertThat(((Pod) decoded.getObject()).getMetadata().getManagedFields()).hasSize(1);
    }

    @Test
    void dropsOnlyTheObjectsManagedFields() {
        String event = event("ADDED", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":" + METADATA + ",\"spec\":" + SPEC + ",\"status\":" + STATUS + "}");

        WatchEvent decoded = new StreamingSerialization(true).unmarshal(event, WatchEvent.class);

        WatchEvent expected = fabric8.unmarshal(event, WatchEvent.class);
        ((HasMetadata) expected.getObject()).getMetadata().setManagedFields(new ArrayList<>());
        assertThat(decoded).isEqualTo(expected);
    }

    @Test
    void keepsAManagedFieldsKeyOutsideTheMetadata() {
        String event = event("ADDED", """
                {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"default","managedFields":[]},
                 "data":{"managedFields":"kept"}}""");

        WatchEvent decoded = new StreamingSerialization(true).unmarshal(event, WatchEvent.class);

        ConfigMap configMap = (ConfigMap) decoded.getObject();
        assertThat(configMap.getData()).containsEntry("managedFields", "kept");
        assertThat(configMap.getMetadata().getManagedFields()).isEmpty();
        assertThat(configMap.getMetadata().getName()).isEqualTo("c");
    }

    @Test
    void findsTheKindAfterOtherFields() {
        String event = event("ADDED", "{\"metadata\":" + METADATA + ",\"spec\":" + SPEC + ",\"apiVersion\":\"v1\",\"status\":" + STATUS + ",\"kind\":\"Pod\"}");

        WatchEvent decoded = new StreamingSerialization(false).unmarshal(event, WatchEvent.class);

        assertThat(decoded.getObject()).isInstanceOf(Pod.class);
        assertThat(decoded).isEqualTo(fabric8.unmarshal(event, WatchEvent.class));
    }

    @Test
    void leavesKindsWithoutAModelClassToFabric8() {
        String event = event("ADDED", "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"size\":3}}");

        WatchEvent decoded = new StreamingSerialization(true).unmarshal(event, WatchEvent.class);

        assertThat(decoded.getObject()).isInstanceOf(GenericKubernetesResource.class);
        assertThat(decoded).isEqualTo(fabric8.unmarshal(event, WatchEvent.class));
    }

    @Test
    void decodesErrorsAndBookmarks() {
        String error = event("ERROR", """
                {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (42)","reason":"Expired","code":410}""");
        String bookmark = event("BOOKMARK", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"99\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}");
        StreamingSerialization serialization = new StreamingSerialization(true);

        WatchEvent decodedError = serialization.unmarshal(error, WatchEvent.class);

        assertThat(decodedError.getObject()).isInstanceOf(Status.class);
        assertThat(((Status) decodedError.getObject()).getCode()).isEqualTo(410);
        assertThat(decodedError).isEqualTo(fabric8.unmarshal(error, WatchEvent.class));
        assertThat(serialization.unmarshal(bookmark, WatchEvent.class)).isEqualTo(fabric8.unmarshal(bookmark, WatchEvent.class));
    }

    @Test
    void reportsMalformedEventsAsFabric8Does() {
        String truncated = event("ADDED", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":" + METADATA).substring(0, 120);

        assertThatThrownBy(() -> new StreamingSerialization(true).unmarshal(truncated, WatchEvent.class)).isInstanceOf(KubernetesClientException.class);
    }

    @Test
    void modelObjectsWithoutUnknownFieldsShareOneEmptyMapOfThem() {
        String spec = SPEC.replace("\"nodeName\":\"node-1\"", "\"nodeName\":\"node-1\",\"fieldOfALaterRelease\":\"x\"");
        String event = event("ADDED", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":" + METADATA + ",\"spec\":" + spec + ",\"status\":" + STATUS + "}");

        Pod pod = (Pod) new StreamingSerialization(false).unmarshal(event, WatchEvent.class).getObject();

        assertThat(pod.getMetadata().getAdditionalProperties()).isEmpty();
        assertThat(pod.getSpec().getContainers().get(0).getAdditionalProperties()).isSameAs(pod.getMetadata().getAdditionalProperties());
        assertThat(pod.getStatus().getConditions().get(0).getAdditionalProperties()).isSameAs(pod.getMetadata().getAdditionalProperties());
        assertThat(pod.getSpec().getAdditionalProperties()).containsExactly(java.util.Map.entry("fieldOfALaterRelease", "x"));
        assertThat(pod).isEqualTo(fabric8.unmarshal(event, WatchEvent.class).getObject());
        // A copy to change, as controllers make one, has maps of its own.
        Pod copy = new PodBuilder(pod).build();
        copy.getMetadata().setAdditionalProperty("added", "y");
        assertThat(copy.getMetadata().getAdditionalProperties()).containsEntry("added", "y");
        assertThat(pod.getMetadata().getAdditionalProperties()).isEmpty();
    }

    @Test
    void watchedObjectsShareEmptyListsAndMapsWhileOtherResponsesKeepTheirOwn() {
        String object = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":" + METADATA + ",\"spec\":" + SPEC + ",\"status\":" + STATUS + "}";
        StreamingSerialization serialization = new StreamingSerialization(false);

        Pod watched = (Pod) serialization.unmarshal(event("ADDED", object), WatchEvent.class).getObject();

        assertThat(watched.getSpec().getVolumes()).isEmpty();
        assertThat(watched.getSpec().getVolumes()).isSameAs(watched.getSpec().getContainers().get(0).getEnv());
        assertThat(watched.getMetadata().getAnnotations()).isEmpty();
        assertThat(watched.getMetadata().getAnnotations()).isSameAs(watched.getSpec().getNodeSelector());
        assertThat(watched.getSpec().getContainers()).hasSize(1);
        assertThat(watched.getMetadata().getLabels()).containsExactly(java.util.Map.entry("app", "web"));
        assertThat(watched).isEqualTo(fabric8.unmarshal(event("ADDED", object), WatchEvent.class).getObject());
        // A copy to change, as controllers make one, has lists and maps of its own.
        Pod copy = new PodBuilder(watched).build();
        copy.getSpec().getVolumes().add(new Volume());
        copy.getMetadata().getAnnotations().put("added", "y");
        assertThat(watched.getSpec().getVolumes()).isEmpty();
        // A pod read by GET is the caller's to change.
        Pod read = serialization.unmarshal(object, Pod.class);
        read.getSpec().getVolumes().add(new Volume());
        read.getMetadata().getAnnotations().put("added", "y");
        assertThat(read.getSpec().getVolumes()).hasSize(1);
    }

    @Test
    void podsDecodedOneAfterTheOtherShareTheirEqualShortStrings() {
        StreamingSerialization serialization = new StreamingSerialization(false);
        String first = event("ADDED", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":" + METADATA + ",\"spec\":" + SPEC + ",\"status\":" + STATUS + "}");
        String second = first.replace("web-1", "web-2");

        Pod one = (Pod) serialization.unmarshal(first, WatchEvent.class).getObject();
        Pod two = (Pod) serialization.unmarshal(second, WatchEvent.class).getObject();

        assertThat(two.getSpec().getContainers().get(0).getImage()).isSameAs(one.getSpec().getContainers().get(0).getImage());
        assertThat(two.getSpec().getNodeName()).isSameAs(one.getSpec().getNodeName());
        assertThat(two.getMetadata().getLabels().get("app")).isSameAs(one.getMetadata().getLabels().get("app"));
        assertThat(two.getMetadata().getName()).isEqualTo("web-2");
        assertThat(one.getMetadata().getName()).isEqualTo("web-1");
        assertThat(two).isEqualTo(fabric8.unmarshal(second, WatchEvent.class).getObject());
    }

    @Test
    void watchedPodsShareTheirRepeatedPartsButNotTheirQuantities() {
        StreamingSerialization serialization = new StreamingSerialization(false);
        String first = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":" + METADATA + ",\"spec\":" + SPEC + ",\"status\":" + STATUS + "}";
        String second = first.replace("web-1", "web-2").replace("\"100m\"", "\"0.1\"");

        Pod one = (Pod) serialization.unmarshal(event("ADDED", first), WatchEvent.class).getObject();
        Pod two = (Pod) serialization.unmarshal(event("ADDED", second), WatchEvent.class).getObject();

        assertThat(two.getSpec().getTolerations().get(0)).isSameAs(one.getSpec().getTolerations().get(0));
        assertThat(two.getSpec().getContainers().get(0).getPorts().get(0)).isSameAs(one.getSpec().getContainers().get(0).getPorts().get(0));
        assertThat(two.getMetadata().getOwnerReferences().get(0)).isSameAs(one.getMetadata().getOwnerReferences().get(0));
        assertThat(two.getStatus().getConditions().get(0)).isSameAs(one.getStatus().getConditions().get(0));
        // Equal to fabric8 but not the same text: each pod keeps its own.
        assertThat(two.getSpec().getContainers().get(0).getResources().getRequests().get("cpu").toString()).isEqualTo("0.1");
        assertThat(one.getSpec().getContainers().get(0).getResources().getRequests().get("cpu").toString()).isEqualTo("100m");
        assertThat(one).isEqualTo(fabric8.unmarshal(event("ADDED", first), WatchEvent.class).getObject());
        assertThat(two).isEqualTo(fabric8.unmarshal(event("ADDED", second), WatchEvent.class).getObject());
        // Pods read by GET are their callers' to change, so they share nothing.
        Pod read = serialization.unmarshal(first, Pod.class);
        assertThat(read.getSpec().getTolerations().get(0)).isNotSameAs(one.getSpec().getTolerations().get(0)).isEqualTo(one.getSpec().getTolerations().get(0));
    }

    private static String event(String type, String object) {
        return "{\"type\":\"" + type + "\",\"object\":" + object + "}";
    }
}
