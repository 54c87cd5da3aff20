package io.k4j.launcher.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * {@code busybox}: Debian's statically linked busybox (package {@code busybox-static}) with every applet linked
 * ({@code sh}, {@code sleep}, {@code hostname}, {@code wget}, {@code nslookup}, {@code tar} for {@code kubectl cp}
 * …), root and nobody in /etc/passwd and /etc/group, and {@code sh} as the default command, like Docker Hub's
 * busybox image. Tagged {@code latest}, the upstream version ({@code 1.35.0}) and its minor ({@code 1.35}).
 *
 * <p>Not thread-safe; used by one build at a time.
 */
public final class BusyboxImage implements ImageRecipe {
    /** Bumped whenever this recipe changes what it builds, so cached images are rebuilt. */
    private static final String RECIPE_VERSION = "busybox-1";
    static final String PACKAGE = "busybox-static";

    private final Path binary;
    private String version;

    public BusyboxImage(Path binary) {
        this.binary = binary;
    }

    /** Debian's busybox-static installs its binary here. */
    public static BusyboxImage fromHost() {
        return new BusyboxImage(Path.of("/bin/busybox"));
    }

    @Override
    public String name() {
        return "busybox";
    }

    @Override
    public String inputs(Progress progress) throws IOException {
        version = HostCommands.installedVersion(PACKAGE).orElseThrow(() -> new IOException(
                "the Debian package " + PACKAGE + " is not installed (its static busybox makes the busybox image); as root: apt-get install " + PACKAGE));
        if (!Files.isRegularFile(binary)) {
            throw new IOException(binary + " is missing although " + PACKAGE + " is installed; reinstall it");
        }
        return RECIPE_VERSION + " " + PACKAGE + "=" + version + " " + binary + "=" + fileDigest(binary);
    }

    @Override
    public List<String> tags() {
        return versionTags("latest", upstreamVersion(requireVersion()));
    }

    @Override
    public ImageDefinition build(Path workDirectory, Progress progress) throws IOException {
        ImageFilesystem filesystem = new ImageFilesystem();
        int applets = addBusybox(filesystem, binary, "bin/busybox");
        filesystem.directory("root", 0700).directory("tmp", 01777).directory("home", 0755)
                .directory("var", 0755).directory("etc", 0755);
        filesystem.file("etc/passwd", 0644, """
                root:x:0:0:root:/root:/bin/sh
                daemon:x:1:1:daemon:/usr/sbin:/bin/false
                nobody:x:65534:65534:nobody:/home:/bin/false
                """);
        filesystem.file("etc/group", 0644, """
                root:x:0:
                daemon:x:1:
                nobody:x:65534:
                """);
        progress.report("busybox: busybox " + upstreamVersion(requireVersion()) + " from " + PACKAGE + " with " + applets + " applets");
        ImageConfig config = new ImageConfig(List.of(), List.of("sh"), List.of(ImageConfig.DEFAULT_PATH), List.of(), "/", "");
        return new ImageDefinition(filesystem, config, "k4j images: busybox from Debian " + PACKAGE + " " + requireVersion());
    }

    /**
     * Adds the binary at {@code location} and a symbolic link to it for every applet it lists (as
     * {@code busybox --install -s} would); returns how many applets were linked.
     */
    static int addBusybox(ImageFilesystem filesystem, Path binary, String location) throws IOException {
        filesystem.file(location, 0755, binary);
        int applets = 0;
        for (String line : HostCommands.run(binary.toString(), "--list-full").split("\n")) {
            String applet = line.strip();
            if (applet.isEmpty() || applet.equals(location) || filesystem.entry(applet).isPresent()) {
                continue;
            }
            filesystem.symbolicLink(applet, "/" + location);
            applets++;
        }
        return applets;
    }

    String requireVersion() {
        if (version == null) {
            throw new IllegalStateException("inputs() was not called");
        }
        return version;
    }

    /** Debian's {@code 1:1.35.0-4+deb12u1+b1} without epoch and Debian revision: {@code 1.35.0}. */
    static String upstreamVersion(String debianVersion) {
        String version = debianVersion;
        int colon = version.indexOf(':');
        if (colon >= 0) {
            version = version.substring(colon + 1);
        }
        int dash = version.lastIndexOf('-');
        if (dash > 0) {
            version = version.substring(0, dash);
        }
        int plus = version.indexOf('+');
        if (plus > 0) {
            version = version.substring(0, plus);
        }
        int tilde = version.indexOf('~');
        if (tilde > 0) {
            version = version.substring(0, tilde);
        }
        return version;
    }

    /** {@code latest}, the full version and its major.minor, without duplicates. */
    static List<String> versionTags(String latest, String version) {
        List<String> tags = new ArrayList<>(List.of(latest));
        if (!version.isEmpty() && version.matches("[A-Za-z0-9_.-]+")) {
            tags.add(version);
            String[] parts = version.split("\\.");
            if (parts.length > 2) {
                tags.add(parts[0] + "." + parts[1]);
            }
        }
        return List.copyOf(tags);
    }

    static String fileDigest(Path file) throws IOException {
        java.security.MessageDigest digest = OciLayout.sha256();
        try (java.io.InputStream in = new java.security.DigestInputStream(Files.newInputStream(file), digest)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return "sha256:" + HexFormat.of().formatHex(digest.digest());
    }
}
