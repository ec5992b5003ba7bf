package net.fips.control.config;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Finds and reads the config files the way the daemon does (operator.md §1.1).
 *
 * <ul>
 *   <li>With an explicit file ({@code -c FILE}, or else {@code FIPS_CONFIG}): only that file, which must exist.
 *       </li>
 *   <li>Otherwise the search path, lowest priority first: {@code /etc/fips/fips.yaml},
 *       {@code $XDG_CONFIG_HOME/fips/fips.yaml} (else {@code $HOME/.config/fips/fips.yaml}),
 *       {@code $HOME/.fips.yaml}, {@code ./fips.yaml}. Every file that exists is read and later files override
 *       earlier ones.</li>
 *   <li>No file at all: the embedded {@code default-fips.yaml}.</li>
 * </ul>
 *
 * <p>Two deliberate differences from the reference. The merge is a real deep merge: a later file overrides
 * exactly the keys it sets, at any depth, whereas the reference drops most {@code node.*} keys of search-path
 * files (§1.1 "merge quirk"). Two things still replace whole, as in the reference: {@code peers} and each
 * {@code transports.<type>} (so a single-block and a named-instance form never get mixed). And with no file at
 * all the reference starts with no transport, while this node starts from the embedded default, which listens
 * on UDP 2121.
 */
public final class ConfigSources {
    /** Config file name. */
    public static final String FILE_NAME = "fips.yaml";

    private final HostEnvironment host;
    private final ConfigLoader loader;

    /** @param host the file system root, working directory and environment to use */
    public ConfigSources(final HostEnvironment host) {
        this.host = Objects.requireNonNull(host, "host");
        this.loader = new ConfigLoader(host);
    }

    /** @return sources for the real host */
    public static ConfigSources system() {
        return new ConfigSources(HostEnvironment.system());
    }

    /** @return the search path, lowest priority first (files need not exist) */
    public List<Path> searchPaths() {
        final List<Path> paths = new ArrayList<>();
        paths.add(host.resolve("/etc/fips/" + FILE_NAME));
        final String home = host.getenv("HOME");
        final String xdgConfig = host.getenv("XDG_CONFIG_HOME");
        if (xdgConfig != null && xdgConfig.startsWith("/")) {
            paths.add(host.resolve(xdgConfig).resolve("fips").resolve(FILE_NAME));
        } else if (home != null && home.startsWith("/")) {
            paths.add(host.resolve(home).resolve(".config").resolve("fips").resolve(FILE_NAME));
        }
        if (home != null && home.startsWith("/")) {
            paths.add(host.resolve(home).resolve(".fips.yaml"));
        }
        paths.add(host.workingDir().resolve(FILE_NAME));
        return paths;
    }

    /**
     * Loads the configuration.
     *
     * @param explicitFile the {@code -c} argument, if given
     * @return the configuration, the files read, warnings and environment settings
     * @throws ConfigException when a file cannot be read or parsed, or the merged result is invalid
     */
    public LoadedConfig load(final Optional<Path> explicitFile) throws ConfigException {
        final List<String> envWarnings = new ArrayList<>();
        final Optional<Path> explicit = explicitFile.isPresent() ? explicitFile
                : EnvSettings.from(host, envWarnings).configFile();
        if (explicit.isPresent()) {
            final Path file = explicit.get();
            return loader.fromTree(loader.parseTree(read(file), file.toString()), file.toString(), List.of(file));
        }
        final List<Path> loaded = new ArrayList<>();
        Map<String, Object> merged = new LinkedHashMap<>();
        for (final Path p : searchPaths()) {
            if (Files.isRegularFile(p)) {
                merged = merge(merged, loader.parseTree(read(p), p.toString()));
                loaded.add(p);
            }
        }
        if (loaded.isEmpty()) {
            return loader.loadDefault();
        }
        final String source = loaded.size() == 1 ? loaded.get(0).toString()
                : "merged " + String.join(" + ", loaded.stream().map(Path::toString).toList());
        return loader.fromTree(merged, source, loaded);
    }

    private static String read(final Path file) throws ConfigException {
        try {
            final long size = Files.size(file);
            // Four bytes per code point is the most UTF-8 can need; anything larger is certainly over the cap.
            if (size > 4L * YamlTrees.MAX_CODE_POINTS) {
                throw new ConfigException(file.toString(), "file is too large (" + size + " bytes)");
            }
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (final CharacterCodingException e) {
            throw new ConfigException(file.toString(), "file is not valid UTF-8");
        } catch (final IOException | SecurityException e) {
            throw new ConfigException(file.toString(), "cannot read file: " + ioReason(e));
        }
    }

    /**
     * @return why a file operation failed, in words: the errno text for the common cases, never an exception's
     *         class name
     */
    public static String ioReason(final Exception e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException || e instanceof SecurityException) {
            return "permission denied";
        }
        if (e instanceof NotDirectoryException) {
            return "a path component is not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        final String m = e.getMessage();
        return m == null || m.isBlank() ? "input/output error" : m;
    }

    /**
     * Deep merge: maps merge key by key, anything else (scalars, lists) in {@code over} replaces. Keys listed as
     * whole-replace ({@code peers}, {@code transports.<type>}) are replaced as units.
     */
    static Map<String, Object> merge(final Map<String, Object> base, final Map<String, Object> over) {
        return mergeAt(base, over, "");
    }

    private static Map<String, Object> mergeAt(final Map<String, Object> base, final Map<String, Object> over,
            final String path) {
        final Map<String, Object> out = new LinkedHashMap<>(base);
        for (final Map.Entry<String, Object> e : over.entrySet()) {
            final String key = e.getKey();
            final String at = path.isEmpty() ? key : path + "." + key;
            final Object mine = out.get(key);
            final boolean wholeUnit = "transports".equals(path);
            if (!wholeUnit && e.getValue() == null && mine != null) {
                // "node:" with nothing under it sets nothing; it must not wipe what an earlier file set.
                continue;
            }
            if (!wholeUnit && mine instanceof Map<?, ?> m1 && e.getValue() instanceof Map<?, ?> m2) {
                out.put(key, mergeAt(cast(m1), cast(m2), at));
            } else {
                out.put(key, e.getValue());
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(final Map<?, ?> m) {
        return (Map<String, Object>) m;
    }
}
