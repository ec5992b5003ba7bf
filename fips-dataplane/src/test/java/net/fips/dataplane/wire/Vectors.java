package net.fips.dataplane.wire;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Loads the shared known-answer vectors ({@code fips.vectors.dir}, else ../shared/vectors beside the project). */
final class Vectors {
    static final HexFormat HEX = HexFormat.of();

    private Vectors() {
    }

    static Path dir() {
        final String prop = System.getProperty("fips.vectors.dir");
        final Path d = Path.of(prop != null ? prop : "../../shared/vectors").toAbsolutePath().normalize();
        if (!Files.isRegularFile(d.resolve("MANIFEST.json"))) {
            fail("known-answer vectors not found at " + d);
        }
        return d;
    }

    static JsonNode load(final String file) {
        try {
            return new ObjectMapper().readTree(dir().resolve(file).toFile());
        } catch (final IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }
}
