package net.fips.ffm.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Holds the committed jextract output to what {@code jextract/regenerate.sh} last wrote: the script records one sha256
 * per generated file in {@code jextract/generated.sha256} (through {@code jextract/manifest.sh}); this test
 * recomputes them over every group's output package (the {@code -t} package of each {@code jextract/*.args}) and
 * fails on an edited, added or removed file. It cannot run jextract itself (not packaged; building it needs a
 * network), so it proves "unchanged since the last regeneration", not "equal to a fresh regeneration".
 */
class GeneratedBindingsManifestTest {

    private static final Pattern TARGET = Pattern.compile("(?m)^(?:-t|--target-package)(?:\\s+|\\R)(\\S+)");

    @Test
    void generatedSourcesMatchTheManifestRegenerateWrote() throws IOException {
        final Path root = Path.of(System.getProperty("user.dir")).getParent();
        final Path jextract = root.resolve("jextract");
        final Map<String, String> expected = readManifest(jextract.resolve("generated.sha256"));
        final Map<String, String> actual = new TreeMap<>();
        final List<String> packages = new ArrayList<>();
        try (Stream<Path> argfiles = Files.list(jextract)) {
            for (final Path args : argfiles.filter(p -> p.toString().endsWith(".args")).sorted().toList()) {
                final Matcher m = TARGET.matcher(Files.readString(args, StandardCharsets.UTF_8));
                assertTrue(m.find(), () -> args + " names no -t <package>");
                packages.add(m.group(1));
            }
        }
        assertFalse(packages.isEmpty(), "no jextract/*.args found under " + jextract);
        for (final String pkg : packages) {
            final Path dir = root.resolve("fips-ffm-bindings/src/main/java").resolve(pkg.replace('.', '/'));
            try (Stream<Path> files = Files.walk(dir)) {
                for (final Path file : files.filter(Files::isRegularFile).toList()) {
                    actual.put(root.relativize(file).toString(), sha256(file));
                }
            }
        }
        final List<String> differences = new ArrayList<>();
        expected.forEach((path, hash) -> {
            if (!actual.containsKey(path)) {
                differences.add("removed: " + path);
            } else if (!actual.get(path).equals(hash)) {
                differences.add("edited: " + path);
            }
        });
        actual.keySet().stream().filter(path -> !expected.containsKey(path))
                .forEach(p -> differences.add("added: " + p));
        assertEquals(List.of(), differences, "generated bindings differ from what jextract/regenerate.sh last wrote;"
                + " never edit them by hand: regenerate (jextract/README.md), which also rewrites the manifest");
    }

    private static Map<String, String> readManifest(final Path manifest) throws IOException {
        final Map<String, String> entries = new TreeMap<>();
        for (final String line : Files.readAllLines(manifest, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            final String[] parts = line.split("\\s+", 2);
            assertEquals(2, parts.length, () -> "malformed manifest line: " + line);
            entries.put(parts[1].strip(), parts[0]);
        }
        return entries;
    }

    private static String sha256(final Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
