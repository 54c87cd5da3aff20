package io.k4j.launcher.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code nginx}: Debian's nginx, never installed or started on the host: {@code apt-get download} fetches the
 * {@code nginx} and {@code nginx-common} packages once into the cache, {@code dpkg-deb -x} unpacks them, and the image
 * gets the nginx binary, the shared libraries {@code ldd} finds for it (from the host, whose versions go into the
 * inputs), Debian's {@code /etc/nginx} files with a configuration like Docker Hub's nginx image (port 80, logs to
 * stdout/stderr, the welcome page from {@code /usr/share/nginx/html}), www-data and nobody users, and busybox so that
 * {@code kubectl exec … -- sh} works. The command is {@code nginx -g 'daemon off;'}; SIGQUIT stops it gracefully.
 *
 * <p>Not thread-safe; used by one build at a time.
 */
public final class NginxImage implements ImageRecipe {
    private static final String RECIPE_VERSION = "nginx-1";
    private static final List<String> PACKAGES = List.of("nginx", "nginx-common");
    private static final Pattern LDD_LINE = Pattern.compile("^\\s*(?:(\\S+)\\s+=>\\s+)?(\\S+)\\s+\\(0x[0-9a-f]+\\)\\s*$");

    static final String NGINX_CONF = """
            user www-data;
            worker_processes auto;
            pid /run/nginx.pid;
            error_log /var/log/nginx/error.log notice;

            events {
                worker_connections 1024;
            }

            http {
                include /etc/nginx/mime.types;
                default_type application/octet-stream;
                log_format main '$remote_addr - $remote_user [$time_local] "$request" '
                                '$status $body_bytes_sent "$http_referer" '
                                '"$http_user_agent" "$http_x_forwarded_for"';
                access_log /var/log/nginx/access.log main;
                sendfile on;
                keepalive_timeout 65;
                include /etc/nginx/conf.d/*.conf;
            }
            """;

    static final String DEFAULT_SERVER = """
            server {
                listen 80;
                server_name localhost;

                location / {
                    root /usr/share/nginx/html;
                    index index.html index.htm;
                }

                error_page 500 502 503 504 /50x.html;
                location = /50x.html {
                    root /usr/share/nginx/html;
                }
            }
            """;

    private final Path packageCache;
    private final BusyboxImage busybox;
    private Path packageDirectory;
    private String version;

    /** {@code packageCache} keeps the downloaded .deb files, one directory per nginx version. */
    public NginxImage(Path packageCache, BusyboxImage busybox) {
        this.packageCache = packageCache;
        this.busybox = busybox;
    }

    @Override
    public String name() {
        return "nginx";
    }

    @Override
    public List<String> tags() {
        if (version == null) {
            throw new IllegalStateException("inputs() was not called");
        }
        return BusyboxImage.versionTags("latest", BusyboxImage.upstreamVersion(version));
    }

    @Override
    public String inputs(Progress progress) throws IOException {
        packageDirectory = packages(progress);
        version = packageDirectory.getFileName().toString().substring("nginx-".length());
        StringBuilder inputs = new StringBuilder(RECIPE_VERSION);
        for (Path deb : debs(packageDirectory)) {
            inputs.append(' ').append(deb.getFileName()).append('=').append(BusyboxImage.fileDigest(deb));
        }
        // The shared libraries come from the host: their packages' versions are inputs too.
        List<String> dependencies = dependencies(debs(packageDirectory));
        java.util.Map<String, String> installed = HostCommands.installedVersions(dependencies);
        for (String dependency : dependencies) {
            inputs.append(' ').append(dependency).append('=').append(installed.getOrDefault(dependency, "none"));
        }
        return inputs.append(' ').append(busybox.inputs(progress)).toString();
    }

    @Override
    public ImageDefinition build(Path workDirectory, Progress progress) throws IOException {
        Path unpacked = workDirectory.resolve("root");
        Files.createDirectories(unpacked);
        for (Path deb : debs(packageDirectory)) {
            HostCommands.run("dpkg-deb", "-x", deb.toString(), unpacked.toString());
        }
        Path nginx = unpacked.resolve("usr/sbin/nginx");
        if (!Files.isRegularFile(nginx)) {
            throw new IOException("the nginx package " + version + " has no usr/sbin/nginx");
        }
        ImageFilesystem filesystem = new ImageFilesystem();
        BusyboxImage.addBusybox(filesystem, Path.of("/bin/busybox"), "bin/busybox");
        filesystem.file("usr/sbin/nginx", 0755, nginx);
        List<String> libraries = addSharedLibraries(filesystem, nginx);
        addTree(filesystem, unpacked, unpacked.resolve("etc/nginx"),
                path -> !path.startsWith("etc/nginx/sites-") && !path.startsWith("etc/nginx/modules-") && !path.equals("etc/nginx/nginx.conf"));
        filesystem.file("etc/nginx/nginx.conf", 0644, NGINX_CONF);
        filesystem.file("etc/nginx/conf.d/default.conf", 0644, DEFAULT_SERVER);
        Path welcome = unpacked.resolve("usr/share/nginx/html/index.html");
        if (!Files.readString(welcome).contains("<title>Welcome to nginx!</title>")) {
            throw new IOException("Debian's nginx welcome page " + welcome + " has no 'Welcome to nginx!' title");
        }
        filesystem.file("usr/share/nginx/html/index.html", 0644, welcome);
        filesystem.file("usr/share/nginx/html/50x.html", 0644, """
                <!DOCTYPE html>
                <html>
                <head>
                <title>Error</title>
                </head>
                <body>
                <h1>An error occurred.</h1>
                <p>Sorry, the page you are looking for is currently unavailable.<br/>
                Please try again later.</p>
                </body>
                </html>
                """);
        filesystem.directory("var/log/nginx", 0755)
                .symbolicLink("var/log/nginx/access.log", "/dev/stdout")
                .symbolicLink("var/log/nginx/error.log", "/dev/stderr")
                .directory("var/lib/nginx", 0755).directory("var/cache/nginx", 0755)
                .directory("run", 0755).directory("tmp", 01777).directory("root", 0700).directory("var/www", 0755);
        filesystem.file("etc/passwd", 0644, """
                root:x:0:0:root:/root:/bin/sh
                www-data:x:33:33:www-data:/var/www:/bin/false
                nobody:x:65534:65534:nobody:/nonexistent:/bin/false
                """);
        filesystem.file("etc/group", 0644, """
                root:x:0:
                www-data:x:33:
                nogroup:x:65534:
                """);
        progress.report("nginx: nginx " + version + " from Debian's packages with " + libraries.size() + " shared libraries from the host");
        String upstream = BusyboxImage.upstreamVersion(version);
        ImageConfig config = new ImageConfig(List.of(), List.of("nginx", "-g", "daemon off;"),
                List.of(ImageConfig.DEFAULT_PATH, "NGINX_VERSION=" + upstream), List.of("80/tcp"), "/", "SIGQUIT");
        return new ImageDefinition(filesystem, config, "k4j images: nginx from Debian nginx " + version);
    }

    /** Adds every library ldd resolves for the binary, at the path the dynamic loader looks for it. */
    private static List<String> addSharedLibraries(ImageFilesystem filesystem, Path binary) throws IOException {
        List<String> libraries = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String line : HostCommands.run("ldd", binary.toString()).split("\n")) {
            if (line.contains("not found")) {
                missing.add(line.strip());
                continue;
            }
            Matcher matcher = LDD_LINE.matcher(line);
            if (!matcher.matches() || !matcher.group(2).startsWith("/")) {
                continue; // linux-vdso.so.1 lives in the kernel
            }
            Path library = Path.of(matcher.group(2));
            filesystem.file(library.toString(), 0755, library.toRealPath());
            libraries.add(library.toString());
        }
        if (!missing.isEmpty()) {
            throw new IOException("nginx needs shared libraries this machine lacks: " + String.join("; ", missing)
                    + " (install nginx's dependencies: libssl3 libpcre2-8-0 zlib1g libcrypt1)");
        }
        return libraries;
    }

    private static void addTree(ImageFilesystem filesystem, Path root, Path directory, java.util.function.Predicate<String> include)
            throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(directory)) {
            paths = walk.sorted().toList();
        }
        for (Path path : paths) {
            String relative = root.relativize(path).toString();
            if (!include.test(relative)) {
                continue;
            }
            if (Files.isSymbolicLink(path)) {
                filesystem.symbolicLink(relative, Files.readSymbolicLink(path).toString());
            } else if (Files.isDirectory(path)) {
                filesystem.directory(relative, mode(path));
            } else {
                filesystem.file(relative, mode(path), path);
            }
        }
    }

    private static int mode(Path path) throws IOException {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path);
        int mode = 0;
        for (PosixFilePermission permission : permissions) {
            mode |= 1 << (8 - permission.ordinal());
        }
        return mode;
    }

    /** The directory with this machine's candidate nginx packages, downloaded into the cache if not there yet. */
    private Path packages(Progress progress) throws IOException {
        Optional<String> candidate = candidateVersion();
        if (candidate.isPresent()) {
            Path directory = packageCache.resolve("nginx-" + candidate.get().replace(':', '%'));
            if (debs(directory).size() == PACKAGES.size()) {
                return directory;
            }
            Files.createDirectories(directory);
            progress.report("nginx: downloading Debian's nginx " + candidate.get() + " packages (apt-get download; nothing is installed)");
            List<String> command = new ArrayList<>(List.of("apt-get", "download", "-q", "-o", "APT::Sandbox::User=root"));
            PACKAGES.forEach(name -> command.add(name + "=" + candidate.get()));
            try {
                HostCommands.run(command, directory);
                if (debs(directory).size() == PACKAGES.size()) {
                    return directory;
                }
            } catch (IOException e) {
                progress.report("nginx: cannot download the packages: " + e.getMessage());
            }
        }
        // Offline or not Debian: use the newest packages downloaded before, if any.
        Optional<Path> cached = Optional.empty();
        if (Files.isDirectory(packageCache)) {
            try (Stream<Path> directories = Files.list(packageCache)) {
                cached = directories.filter(path -> path.getFileName().toString().startsWith("nginx-"))
                        .filter(path -> {
                            try {
                                return debs(path).size() == PACKAGES.size();
                            } catch (IOException e) {
                                return false;
                            }
                        })
                        .max(Comparator.comparing(path -> {
                            try {
                                return Files.getLastModifiedTime(path);
                            } catch (IOException e) {
                                return java.nio.file.attribute.FileTime.fromMillis(0);
                            }
                        }));
            }
        }
        if (cached.isPresent()) {
            progress.report("nginx: using the cached packages in " + cached.get());
            return cached.get();
        }
        throw new IOException("cannot get Debian's nginx packages: apt-get download nginx nginx-common failed and none are cached in "
                + packageCache + " (run `apt-get update` and retry, on a Debian machine with access to its package mirror)");
    }

    private static Optional<String> candidateVersion() {
        if (HostCommands.find("apt-cache").isEmpty()) {
            return Optional.empty();
        }
        try {
            for (String line : HostCommands.run("apt-cache", "show", "--no-all-versions", "nginx").split("\n")) {
                if (line.startsWith("Version: ")) {
                    return Optional.of(line.substring("Version: ".length()).strip());
                }
            }
        } catch (IOException e) {
            // no package lists: fall back to the cache
        }
        return Optional.empty();
    }

    private static List<Path> debs(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        TreeMap<String, Path> byPackage = new TreeMap<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path deb : files.filter(file -> file.getFileName().toString().endsWith(".deb")).toList()) {
                String name = deb.getFileName().toString();
                String packageName = name.substring(0, name.indexOf('_') > 0 ? name.indexOf('_') : name.length());
                if (PACKAGES.contains(packageName)) {
                    byPackage.put(packageName, deb);
                }
            }
        }
        return List.copyOf(byPackage.values());
    }

    /** The runtime dependencies the packages declare (names only, first of each alternative). */
    private static List<String> dependencies(List<Path> debs) throws IOException {
        List<String> names = new ArrayList<>();
        for (Path deb : debs) {
            String depends = HostCommands.run("dpkg-deb", "-f", deb.toString(), "Depends").strip();
            for (String clause : depends.split(",")) {
                String name = clause.strip().split("[\\s|(]")[0].replace(":any", "");
                if (!name.isEmpty() && !PACKAGES.contains(name) && !names.contains(name)) {
                    names.add(name);
                }
            }
        }
        return names.stream().sorted().toList();
    }
}
