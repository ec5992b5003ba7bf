package net.fips.control.conformance;

import java.nio.file.Path;

/**
 * Checks every vector of one file in {@code shared/vectors}. An implementation for {@code some_file.json} is the
 * class {@code SomeFileVectors} in this package (found by name by {@link ConformanceTest}); it records one
 * {@link Tally} entry per vector, under the kind names that MANIFEST.json counts for that file.
 */
public interface VectorFileCheck {
    /**
     * @param file  the vector file
     * @param tally where each vector's result goes
     */
    void check(Path file, Tally tally) throws Exception;
}
