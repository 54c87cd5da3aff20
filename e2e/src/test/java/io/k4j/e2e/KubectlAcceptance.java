package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 2's acceptance with the real kubectl 1.32 and no extra flags: each test is one line of the issue. Subclasses
 * choose the storage backend; the suite itself is the same for both.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class KubectlAcceptance {
    /** Seed 01's pod: two containers, labels and an annotation. */
    static final String SEED_POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: name
              namespace: default
              labels:
                app: pod_label
              annotations:
                version: v0.0.1
            spec:
              containers:
              - name: c1
                image: nginx
                ports:
                - containerPort: 80
              - name: c2
                image: busybox
                command:
                  - "bin/sh"
                  - "-c"
                  - "sleep 100"
            """;

    abstract K4jServer server();

    abstract Path workDirectory();

    Kubectl kubectl() {
        return server().kubectl();
    }

    Kubectl.Result kubectl(String... arguments) {
        return kubectl().run(arguments).assertSuccess();
    }

    Kubectl.Result kubectlWithInput(String stdin, String... arguments) {
        return kubectl().run(stdin, Map.of(), arguments).assertSuccess();
    }

    Path write(String name, String content) {
        try {
            Path file = workDirectory().resolve(name);
            Files.writeString(file, content);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    @Order(1)
    void getNamespacesListsTheBootstrapNamespaces() {
        String output = kubectl("get", "ns").stdout();
        assertThat(output).contains("NAME", "STATUS", "AGE");
        assertThat(output).containsPattern("default\\s+Active");
        assertThat(output).containsPattern("kube-system\\s+Active");
        assertThat(output).containsPattern("kube-public\\s+Active");
        assertThat(output).containsPattern("kube-node-lease\\s+Active");
    }

    @Test
    @Order(2)
    void apiResourcesAndVersionsAreDiscovered() {
        String resources = kubectl("api-resources").stdout();
        assertThat(resources).containsPattern("pods\\s+po\\s+v1\\s+true\\s+Pod");
        assertThat(resources).containsPattern("deployments\\s+deploy\\s+apps/v1\\s+true\\s+Deployment");
        assertThat(resources).containsPattern("clusterroles\\s+rbac.authorization.k8s.io/v1\\s+false\\s+ClusterRole");
        String versions = kubectl("api-versions").stdout();
        assertThat(versions.lines()).contains("v1", "apps/v1", "batch/v1", "rbac.authorization.k8s.io/v1", "coordination.k8s.io/v1");
    }

    @Test
    @Order(3)
    void versionReportsTheServer() {
        assertThat(kubectl("version").stdout()).contains("Server Version: v1.32");
    }

    @Test
    @Order(4)
    void seedPodIsCreatedAndPending() {
        Path pod = write("pod.yaml", SEED_POD);
        assertThat(kubectl("create", "-f", pod.toString()).stdout()).contains("pod/name created");
        String pods = kubectl("get", "pods").stdout();
        assertThat(pods).containsPattern("name\\s+0/2\\s+Pending\\s+0\\s+\\d+s");
    }

    @Test
    @Order(5)
    void podYamlShowsUpstreamDefaults() {
        String yaml = kubectl("get", "pod", "name", "-o", "yaml").stdout();
        assertThat(yaml).contains(
                "restartPolicy: Always",
                "dnsPolicy: ClusterFirst",
                "schedulerName: default-scheduler",
                "terminationGracePeriodSeconds: 30",
                "imagePullPolicy: Always",
                "terminationMessagePath: /dev/termination-log",
                "terminationMessagePolicy: File",
                "protocol: TCP",
                "enableServiceLinks: true",
                "serviceAccountName: default",
                "phase: Pending",
                "qosClass: BestEffort",
                "uid: ",
                "resourceVersion: ",
                "creationTimestamp: ");
        assertThat(yaml).contains("node.kubernetes.io/not-ready", "tolerationSeconds: 300");
    }

    @Test
    @Order(6)
    void outputFormatsAndSelectors() {
        assertThat(kubectl("get", "pods", "-o", "wide").stdout()).contains("IP", "NODE", "NOMINATED NODE", "READINESS GATES");
        assertThat(kubectl("get", "pod", "name", "-o", "json").stdout()).contains("\"kind\": \"Pod\"", "\"name\": \"name\"");
        assertThat(kubectl("get", "pod", "name", "-o", "jsonpath={.spec.containers[1].image}").stdout()).isEqualTo("busybox");
        assertThat(kubectl("get", "pods", "-o", "custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[0].image").stdout())
                .containsPattern("name\\s+nginx");
        assertThat(kubectl("get", "pods", "--show-labels").stdout()).contains("app=pod_label");
        assertThat(kubectl("get", "pods", "-l", "app=pod_label", "-o", "name").stdout().trim()).isEqualTo("pod/name");
        assertThat(kubectl("get", "pods", "-l", "app in (other)", "-o", "name").stdout().trim()).isEmpty();
        assertThat(kubectl("get", "pods", "--field-selector", "status.phase=Pending", "-o", "name").stdout().trim()).isEqualTo("pod/name");
        assertThat(kubectl("get", "pods", "--field-selector", "spec.nodeName=nowhere", "-o", "name").stdout().trim()).isEmpty();
        for (int i = 0; i < 5; i++) {
            kubectl("create", "configmap", "chunk-" + i, "--from-literal=k=v" + i);
        }
        String chunked = kubectl("get", "configmaps", "--chunk-size=2", "-o", "name").stdout();
        assertThat(chunked.lines().filter(line -> line.startsWith("configmap/chunk-"))).hasSize(5);
    }

    @Test
    @Order(7)
    void applyTwiceDiffLabelAnnotate() {
        String deployment = """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                spec:
                  replicas: 2
                  selector:
                    matchLabels: {app: web}
                  template:
                    metadata:
                      labels: {app: web}
                    spec:
                      containers:
                      - name: nginx
                        image: nginx:1.25
                """;
        Path file = write("web.yaml", deployment);
        assertThat(kubectl("apply", "-f", file.toString()).stdout()).contains("deployment.apps/web created");
        Path changed = write("web.yaml", deployment.replace("replicas: 2", "replicas: 3").replace("nginx:1.25", "nginx:1.26"));
        Kubectl.Result diff = kubectl().run("diff", "-f", changed.toString());
        assertThat(diff.exitCode()).as("kubectl diff exits 1 when there are differences: %s", diff.stderr()).isEqualTo(1);
        assertThat(diff.stdout()).contains("-  replicas: 2", "+  replicas: 3");
        assertThat(kubectl("apply", "-f", changed.toString()).stdout()).contains("deployment.apps/web configured");
        assertThat(kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.generation}").stdout())
                .isEqualTo("3 nginx:1.26 2");
        assertThat(kubectl("diff", "-f", changed.toString()).stdout()).isEmpty();
        kubectl("label", "deployment", "web", "tier=frontend");
        kubectl("annotate", "deployment", "web", "owner=team-a");
        assertThat(kubectl("get", "deployment", "web", "-o", "jsonpath={.metadata.labels.tier} {.metadata.annotations.owner}").stdout())
                .isEqualTo("frontend team-a");
    }

    @Test
    @Order(8)
    void patchAllThreeTypesReplaceAndEdit() {
        // Upstream puts elements new to a merged list before the existing ones.
        kubectl("patch", "deployment", "web", "--type=strategic", "-p", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"sidecar\",\"image\":\"busybox\"}]}}}}");
        assertThat(kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[*].name}").stdout()).isEqualTo("sidecar nginx");
        kubectl("patch", "deployment", "web", "--type=merge", "-p", "{\"metadata\":{\"labels\":{\"merged\":\"yes\"}}}");
        kubectl("patch", "deployment", "web", "--type=json", "-p", "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":4}]");
        assertThat(kubectl("get", "deployment", "web", "-o", "jsonpath={.metadata.labels.merged} {.spec.replicas}").stdout()).isEqualTo("yes 4");

        String current = kubectl("get", "configmap", "chunk-0", "-o", "yaml").stdout();
        Path replaced = write("replaced.yaml", current.replace("k: v0", "k: replaced"));
        kubectl("replace", "-f", replaced.toString());
        assertThat(kubectl("get", "configmap", "chunk-0", "-o", "jsonpath={.data.k}").stdout()).isEqualTo("replaced");

        Path editor = write("editor.sh", "#!/bin/sh\nsed -i 's/k: v1/k: edited/' \"$1\"\n");
        try {
            Files.setPosixFilePermissions(editor, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        kubectl().run(null, Map.of("KUBE_EDITOR", editor.toString()), "edit", "configmap", "chunk-1").assertSuccess();
        assertThat(kubectl("get", "configmap", "chunk-1", "-o", "jsonpath={.data.k}").stdout()).isEqualTo("edited");
    }

    @Test
    @Order(9)
    void scaleDeployment() {
        assertThat(kubectl("scale", "deployment", "web", "--replicas=5").stdout()).contains("deployment.apps/web scaled");
        assertThat(kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}").stdout()).isEqualTo("5");
    }

    @Test
    @Order(10)
    void createEveryKindFromTheCommandLine() {
        kubectl("create", "namespace", "team-a");
        kubectl("create", "configmap", "settings", "-n", "team-a", "--from-literal=mode=fast");
        kubectl("create", "secret", "generic", "password", "-n", "team-a", "--from-literal=password=s3cret");
        kubectl("create", "serviceaccount", "builder", "-n", "team-a");
        kubectl("create", "deployment", "api", "-n", "team-a", "--image=nginx", "--replicas=2");
        kubectl("create", "service", "clusterip", "api", "-n", "team-a", "--tcp=80:8080");
        kubectl("create", "role", "reader", "-n", "team-a", "--verb=get,list,watch", "--resource=pods,configmaps");
        kubectl("create", "rolebinding", "reader", "-n", "team-a", "--role=reader", "--user=jane");
        kubectl("create", "clusterrole", "node-reader", "--verb=get,list", "--resource=nodes");
        kubectl("create", "clusterrolebinding", "node-reader", "--clusterrole=node-reader", "--user=jane");
        kubectl("create", "job", "once", "-n", "team-a", "--image=busybox", "--", "echo", "hi");
        kubectl("create", "cronjob", "nightly", "-n", "team-a", "--image=busybox", "--schedule=0 3 * * *", "--", "echo", "hi");
        kubectl("create", "quota", "small", "-n", "team-a", "--hard=pods=10,configmaps=20");
        kubectl("create", "priorityclass", "high", "--value=1000", "--description=important");
        String all = kubectl("get", "configmap,secret,serviceaccount,deployment,service,role,rolebinding,job,cronjob,resourcequota", "-n", "team-a", "-o", "name").stdout();
        assertThat(all).contains(
                "configmap/settings", "secret/password", "serviceaccount/builder", "deployment.apps/api", "service/api",
                "role.rbac.authorization.k8s.io/reader", "rolebinding.rbac.authorization.k8s.io/reader", "job.batch/once",
                "cronjob.batch/nightly", "resourcequota/small");
        assertThat(kubectl("get", "priorityclass", "high", "-o", "jsonpath={.value}").stdout()).isEqualTo("1000");
        // Admission charges every create to the quota; the first charge also counts what was there before (until the
        // quota controller keeps usage current, a quota's usage appears with the first charged create).
        kubectl("create", "configmap", "charged", "-n", "team-a", "--from-literal=a=b");
        String used = kubectl("get", "quota", "small", "-n", "team-a", "-o", "jsonpath={.status.used.configmaps}").stdout();
        // settings, charged and the root CA config map of the namespace, if its controller created one.
        assertThat(Integer.parseInt(used)).isBetween(2, 3);
        Kubectl.Result overQuota = kubectl().run("create", "quota", "tiny", "-n", "team-a", "--hard=configmaps=1");
        assertThat(overQuota.exitCode()).isZero();
        Kubectl.Result rejected = kubectl().run("create", "configmap", "one-too-many", "-n", "team-a");
        assertThat(rejected.exitCode()).isNotZero();
        assertThat(rejected.stderr()).contains("exceeded quota: tiny, requested: configmaps=1");
    }

    @Test
    @Order(11)
    void getWatchShowsLaterChanges() throws Exception {
        Path output = workDirectory().resolve("watch.out");
        Process watch = new ProcessBuilder("kubectl", "--kubeconfig=" + server().kubeconfig(), "get", "configmaps", "-w", "--request-timeout=30s")
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> Files.readString(output).contains("chunk-2"));
            kubectl("create", "configmap", "watched-later", "--from-literal=a=b");
            await().atMost(Duration.ofSeconds(20)).until(() -> Files.readString(output).contains("watched-later"));
        } finally {
            watch.destroy();
        }
    }

    @Test
    @Order(12)
    void describeAndExplain() {
        assertThat(kubectl("describe", "pod", "name").stdout()).contains("Name:", "Namespace:", "default", "Containers:", "c1:", "c2:", "Image:", "nginx");
        assertThat(kubectl("describe", "deployment", "web").stdout()).contains("Replicas:", "Selector:", "app=web");
        String explain = kubectl("explain", "pod.spec.containers").stdout();
        assertThat(explain).contains("KIND:", "Pod", "FIELD: containers", "image", "<string>");
        // upstream's documentation: text under DESCRIPTION and under each field
        assertThat(explain).containsPattern("DESCRIPTION:\\n\\s+\\S");
        assertThat(explain).containsPattern("(?m)^  image\\t<string>\\n\\s+\\S");
        String strategy = kubectl("explain", "deployment.spec.strategy", "--recursive").stdout();
        assertThat(strategy).contains("KIND:", "Deployment", "FIELD: strategy", "rollingUpdate", "maxSurge", "maxUnavailable", "type");
        assertThat(strategy).containsPattern("DESCRIPTION:\\n\\s+\\S");
    }

    @Test
    @Order(13)
    void authCanIAndWhoAmI() {
        assertThat(kubectl("auth", "whoami").stdout()).contains("kubernetes-admin", "system:masters");
        assertThat(kubectl("auth", "can-i", "create", "pods").stdout().trim()).isEqualTo("yes");
        assertThat(kubectl("auth", "can-i", "list", "pods", "-n", "team-a", "--as=jane").stdout().trim()).isEqualTo("yes");
        Kubectl.Result denied = kubectl().run("auth", "can-i", "delete", "pods", "-n", "team-a", "--as=jane");
        assertThat(denied.exitCode()).isEqualTo(1);
        assertThat(denied.stdout().trim()).isEqualTo("no");
        Kubectl.Result forbidden = kubectl().run("get", "secrets", "-n", "team-a", "--as=jane");
        assertThat(forbidden.exitCode()).isNotZero();
        assertThat(forbidden.stderr()).contains("Forbidden", "User \"jane\" cannot list resource \"secrets\" in API group \"\" in the namespace \"team-a\"");
        assertThat(kubectl("get", "pods", "-n", "team-a", "--as=jane").exitCode()).isZero();
    }

    @Test
    @Order(13)
    void rbacWritesCannotGrantMoreThanTheWriterHolds() {
        kubectl("create", "role", "rbac-writer", "-n", "team-a", "--verb=create,get", "--resource=roles,rolebindings");
        kubectl("create", "rolebinding", "jane-rbac-writer", "-n", "team-a", "--role=rbac-writer", "--user=jane");
        // The authorizer's policy follows RBAC changes through a watch, so the new rights apply within moments.
        await().atMost(Duration.ofSeconds(20)).until(() -> kubectl().run("auth", "can-i", "create", "roles", "-n", "team-a", "--as=jane").exitCode() == 0);

        Kubectl.Result escalatingRole = kubectl().run("create", "role", "secret-reader", "-n", "team-a", "--verb=get", "--resource=secrets", "--as=jane");
        assertThat(escalatingRole.exitCode()).isNotZero();
        assertThat(escalatingRole.stderr()).contains("roles.rbac.authorization.k8s.io \"secret-reader\" is forbidden: user \"jane\" (groups=",
                "is attempting to grant RBAC permissions not currently held:", "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}");

        Kubectl.Result escalatingBinding = kubectl().run("create", "rolebinding", "jane-admin", "-n", "team-a", "--clusterrole=cluster-admin", "--user=jane", "--as=jane");
        assertThat(escalatingBinding.exitCode()).isNotZero();
        assertThat(escalatingBinding.stderr()).contains("rolebindings.rbac.authorization.k8s.io \"jane-admin\" is forbidden: user \"jane\"",
                "is attempting to grant RBAC permissions not currently held:");

        assertThat(kubectl("create", "role", "pod-viewer", "-n", "team-a", "--verb=get,list", "--resource=pods", "--as=jane").stdout())
                .contains("role.rbac.authorization.k8s.io/pod-viewer created");
        // Binding a role needs its rules, read from the same policy the authorizer uses: wait until it knows the new role.
        await().atMost(Duration.ofSeconds(20)).until(() -> kubectl().run("create", "rolebinding", "pod-viewer", "-n", "team-a", "--role=pod-viewer",
                "--user=joe", "--as=jane").stdout().contains("rolebinding.rbac.authorization.k8s.io/pod-viewer created"));
        assertThat(kubectl().run("get", "role", "secret-reader", "-n", "team-a").exitCode()).isNotZero();
    }

    @Test
    @Order(14)
    void createTokenForTheDefaultServiceAccount() {
        String token = kubectl("create", "token", "default").stdout().trim();
        assertThat(token.split("\\.")).hasSize(3);
        // A kubeconfig with only the token: with a client certificate as well, the certificate would win (as upstream).
        String server = kubectl("config", "view", "--raw", "-o", "jsonpath={.clusters[0].cluster.server}").stdout();
        String authority = kubectl("config", "view", "--raw", "-o", "jsonpath={.clusters[0].cluster.certificate-authority-data}").stdout();
        Path tokenConfig = write("token.kubeconfig", """
                apiVersion: v1
                kind: Config
                clusters:
                - name: k4j
                  cluster: {server: "%s", certificate-authority-data: "%s"}
                users:
                - name: default
                  user: {token: "%s"}
                contexts:
                - name: default
                  context: {cluster: k4j, user: default}
                current-context: default
                """.formatted(server, authority, token));
        Kubectl asServiceAccount = new Kubectl(tokenConfig);
        assertThat(asServiceAccount.run("auth", "whoami").assertSuccess().stdout()).contains("system:serviceaccount:default:default");
        Kubectl.Result forbidden = asServiceAccount.run("get", "secrets");
        assertThat(forbidden.stderr()).contains("User \"system:serviceaccount:default:default\" cannot list resource \"secrets\"");
        assertThat(asServiceAccount.run("get", "pods", "--token=not-a-valid-token").stderr()).contains("Unauthorized");
    }

    @Test
    @Order(15)
    void deleteWithAndWithoutCascade() {
        assertThat(kubectl("delete", "pod", "name").stdout()).contains("pod \"name\" deleted");
        assertThat(kubectl().run("get", "pod", "name").stderr()).contains("NotFound", "pods \"name\" not found");
        // Orphan and foreground deletes finish through the garbage collector: orphaning keeps the deployment's
        // replica sets without their owner; foreground deletion removes them before the deployment goes.
        await().atMost(Duration.ofMinutes(2)).until(() -> !kubectl("get", "rs", "-n", "team-a", "-l", "app=api", "-o", "name").stdout().isBlank());
        kubectl("delete", "deployment", "api", "-n", "team-a", "--cascade=orphan", "--timeout=120s");
        assertThat(kubectl().run("get", "deployment", "api", "-n", "team-a").stderr()).contains("deployments.apps \"api\" not found");
        assertThat(kubectl("get", "rs", "-n", "team-a", "-l", "app=api", "-o", "jsonpath={range .items[*]}{.metadata.name}:{.metadata.ownerReferences}{end}").stdout())
                .startsWith("api-").endsWith(":");
        await().atMost(Duration.ofMinutes(2)).until(() -> !kubectl("get", "rs", "-l", "app=web", "-o", "name").stdout().isBlank());
        kubectl("delete", "deployment", "web", "--cascade=foreground", "--timeout=120s");
        assertThat(kubectl().run("get", "deployment", "web").stderr()).contains("deployments.apps \"web\" not found");
        assertThat(kubectl("get", "rs", "-l", "app=web", "-o", "name").stdout()).isBlank();
        kubectl("delete", "configmap", "settings", "-n", "team-a");
        assertThat(kubectl("get", "configmap", "-n", "team-a", "-o", "name").stdout()).doesNotContain("settings");
    }

    @Test
    @Order(16)
    void badInputIsRejectedWithUpstreamErrors() {
        Kubectl.Result invalid = kubectl().run("create", "configmap", "Bad_Name");
        assertThat(invalid.exitCode()).isNotZero();
        assertThat(invalid.stderr()).contains("Invalid value: \"Bad_Name\"", "a lowercase RFC 1123 subdomain");
        Kubectl.Result duplicate = kubectl().run("create", "configmap", "chunk-3");
        assertThat(duplicate.stderr()).contains("configmaps \"chunk-3\" already exists");
        Kubectl.Result duplicateFromFile = kubectl().run("create", "-f", write("duplicate.yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: chunk-3
                """).toString());
        assertThat(duplicateFromFile.stderr()).contains("Error from server (AlreadyExists)", "configmaps \"chunk-3\" already exists");
        Kubectl.Result unknownField = kubectl().run("create", "-f", write("unknown.yaml", """
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: unknown-field
                data: {a: b}
                colour: blue
                """).toString());
        assertThat(unknownField.exitCode()).isNotZero();
        assertThat(unknownField.stderr()).contains("unknown field \"colour\"");
        Kubectl.Result unknownResource = kubectl().run("get", "flurbs");
        assertThat(unknownResource.stderr()).contains("the server doesn't have a resource type \"flurbs\"");
    }

    @Test
    @Order(17)
    void serverSideApplyWithManagedFieldsAndConflicts() {
        String deployment = """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: ssa-web
                  labels: {app: ssa-web}
                spec:
                  replicas: 2
                  selector:
                    matchLabels: {app: ssa-web}
                  template:
                    metadata:
                      labels: {app: ssa-web}
                    spec:
                      containers:
                      - name: nginx
                        image: nginx:1.25
                """;
        Path file = write("ssa-web.yaml", deployment);
        assertThat(kubectl("apply", "--server-side", "-f", file.toString()).stdout()).contains("deployment.apps/ssa-web serverside-applied");
        Path changed = write("ssa-web.yaml", deployment.replace("replicas: 2", "replicas: 3").replace("  labels: {app: ssa-web}\nspec", "  labels: {app: ssa-web, tier: web}\nspec"));
        assertThat(kubectl("apply", "--server-side", "-f", changed.toString()).stdout()).contains("deployment.apps/ssa-web serverside-applied");
        assertThat(kubectl("get", "deployment", "ssa-web", "-o", "jsonpath={.spec.replicas} {.metadata.labels.tier}").stdout()).isEqualTo("3 web");
        // A label the manager no longer applies, and no one else owns, is removed.
        kubectl("apply", "--server-side", "-f", write("ssa-web.yaml", deployment.replace("replicas: 2", "replicas: 3")).toString());
        assertThat(kubectl("get", "deployment", "ssa-web", "-o", "jsonpath={.spec.replicas} {.metadata.labels}").stdout()).isEqualTo("3 {\"app\":\"ssa-web\"}");
        assertThat(kubectl("get", "deployment", "ssa-web", "-o", "yaml").stdout()).doesNotContain("managedFields");
        String managed = kubectl("get", "deployment", "ssa-web", "-o", "yaml", "--show-managed-fields").stdout();
        assertThat(managed).contains("managedFields:", "manager: kubectl", "operation: Apply", "fieldsType: FieldsV1", "f:replicas: {}",
                "k:{\"name\":\"nginx\"}:", "f:image: {}");

        // An object managed by client-side apply: another manager changing its fields conflicts, unless it forces.
        String client = deployment.replace("ssa-web", "csa-web");
        kubectl("apply", "-f", write("csa-web.yaml", client).toString());
        // The deployment controller's status writes add their own entry (kube-controller-manager, subresource status).
        assertThat(kubectl("get", "deployment", "csa-web", "-o", "jsonpath={.metadata.managedFields[*].manager}", "--show-managed-fields").stdout())
                .contains("kubectl-client-side-apply");
        Path scaledUp = write("csa-web-scaled.yaml", client.replace("replicas: 2", "replicas: 4"));
        Kubectl.Result conflict = kubectl().run("apply", "--server-side", "--field-manager=scaler", "-f", scaledUp.toString());
        assertThat(conflict.exitCode()).isNotZero();
        assertThat(conflict.stderr()).contains("Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using apps/v1: .spec.replicas");
        assertThat(kubectl("get", "deployment", "csa-web", "-o", "jsonpath={.spec.replicas}").stdout()).isEqualTo("2");
        kubectl("apply", "--server-side", "--field-manager=scaler", "--force-conflicts", "-f", scaledUp.toString());
        assertThat(kubectl("get", "deployment", "csa-web", "-o", "jsonpath={.spec.replicas}").stdout()).isEqualTo("4");
        // kubectl then moves what client-side apply owned to the new manager and applies again, which drops the
        // client-side apply annotation that no one owns any more.
        String owners = kubectl("get", "deployment", "csa-web", "-o", "yaml", "--show-managed-fields").stdout();
        assertThat(owners).contains("manager: scaler", "operation: Apply").doesNotContain("kubectl-client-side-apply", "last-applied-configuration");

        // kubectl's own server-side apply takes over what it applied client-side, without conflicts.
        kubectl("apply", "-f", write("csa-api.yaml", client.replace("csa-web", "csa-api")).toString());
        kubectl("apply", "--server-side", "-f", write("csa-api.yaml", client.replace("csa-web", "csa-api").replace("replicas: 2", "replicas: 1")).toString());
        assertThat(kubectl("get", "deployment", "csa-api", "-o", "jsonpath={.spec.replicas}").stdout()).isEqualTo("1");

        // A server-side dry run changes nothing.
        kubectl("apply", "--server-side", "--dry-run=server", "-f", write("ssa-dry.yaml", deployment.replace("ssa-web", "ssa-dry")).toString());
        assertThat(kubectl().run("get", "deployment", "ssa-dry").stderr()).contains("deployments.apps \"ssa-dry\" not found");
    }
}
