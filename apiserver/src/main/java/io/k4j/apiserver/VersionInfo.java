package io.k4j.apiserver;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;

/** What {@code /version} answers, in upstream's {@code version.Info} shape. */
public record VersionInfo(String major, String minor, String gitVersion, String gitCommit, String gitTreeState, String buildDate, String goVersion, String compiler, String platform) {
    public VersionInfo {
        requireNonNull(major, "major is null");
        requireNonNull(minor, "minor is null");
        requireNonNull(gitVersion, "gitVersion is null");
        requireNonNull(gitCommit, "gitCommit is null");
        requireNonNull(gitTreeState, "gitTreeState is null");
        requireNonNull(buildDate, "buildDate is null");
        requireNonNull(goVersion, "goVersion is null");
        requireNonNull(compiler, "compiler is null");
        requireNonNull(platform, "platform is null");
    }

    /** The Kubernetes version k4j implements, with the running JVM as "go" version. */
    public static VersionInfo k4j() {
        String arch = System.getProperty("os.arch").equals("x86_64") ? "amd64" : System.getProperty("os.arch");
        return new VersionInfo("1", "32", "v1.32.0-k4j", "", "clean", "1970-01-01T00:00:00Z",
                "java" + Runtime.version().feature(), "javac", System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT) + "/" + arch);
    }

    ObjectNode toJson() {
        ObjectNode node = Json.object();
        node.put("major", major);
        node.put("minor", minor);
        node.put("gitVersion", gitVersion);
        node.put("gitCommit", gitCommit);
        node.put("gitTreeState", gitTreeState);
        node.put("buildDate", buildDate);
        node.put("goVersion", goVersion);
        node.put("compiler", compiler);
        node.put("platform", platform);
        return node;
    }
}
