package net.fips.control.dns;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import net.fips.control.acl.AclProblem;
import net.fips.control.acl.HostAliases;

/**
 * The responder's live view of the host map: YAML peer aliases overlaid by the hosts file (operator.md §4.2),
 * reloaded when the file changes. The file format and its rules are {@link HostAliases#parseHostsFile}'s, the
 * same parser the ACL uses.
 *
 * <p>As the reference's responder, {@link #poll()} is meant to be called before every query: it costs one
 * {@code stat}. A change of existence, size, modification time or file key reloads the file. A missing file is an
 * empty overlay; an unreadable file (I/O error, not UTF-8, over {@link #MAX_FILE_BYTES}) is also an empty
 * overlay, reported as a problem on line 0, as the reference falls back to an empty map. Bad lines are skipped and
 * reported with their line numbers; the good lines apply. Nothing here throws for bad input.
 *
 * <p>Single writer: one thread calls {@link #poll()}; {@link #aliases()} may be read from any thread.
 */
public final class HostsFile {
    /** The largest hosts file read; a larger one is treated as unreadable. */
    public static final long MAX_FILE_BYTES = 1L << 20;

    /** What a poll found. */
    public enum Outcome {
        /** The file did not change. */
        UNCHANGED,
        /** The file changed (appeared, vanished or was written) and the map was rebuilt. */
        RELOADED
    }

    /**
     * @param outcome  what happened
     * @param problems the reloaded file's problems (empty when unchanged)
     */
    public record PollResult(Outcome outcome, List<AclProblem> problems) {
        /** Freezes the list. */
        public PollResult {
            Objects.requireNonNull(outcome, "outcome");
            problems = List.copyOf(problems);
        }
    }

    private record Stat(boolean exists, long size, long mtimeNanos, Object fileKey) {
    }

    private final Path path;
    private final HostAliases base;
    private Stat stat;
    private volatile HostAliases current;
    private volatile List<AclProblem> problems;

    /**
     * Loads the file now.
     *
     * @param path the hosts file ({@link HostAliases#DEFAULT_HOSTS_PATH} in the reference)
     * @param base the YAML peer aliases; the file wins a conflict
     */
    public HostsFile(final Path path, final HostAliases base) {
        this.path = Objects.requireNonNull(path, "path");
        this.base = Objects.requireNonNull(base, "base");
        this.stat = stat();
        load();
    }

    /** @return the file watched */
    public Path path() {
        return path;
    }

    /** @return the map in force: YAML aliases overlaid by the file */
    public HostAliases aliases() {
        return current;
    }

    /** @return the problems of the last load */
    public List<AclProblem> problems() {
        return problems;
    }

    /**
     * Reloads when the file changed since the last load.
     *
     * @return what happened
     */
    public PollResult poll() {
        final Stat now = stat();
        if (now.equals(stat)) {
            return new PollResult(Outcome.UNCHANGED, List.of());
        }
        stat = now;
        load();
        return new PollResult(Outcome.RELOADED, problems);
    }

    private void load() {
        final List<AclProblem> found = new ArrayList<>();
        HostAliases fromFile = HostAliases.EMPTY;
        final String text = read(found);
        if (text != null) {
            final HostAliases.Parsed parsed = HostAliases.parseHostsFile(text);
            fromFile = parsed.aliases();
            for (final String p : parsed.problems()) {
                found.add(new AclProblem(path, lineOf(p), AclProblem.Severity.WARNING, p));
            }
        }
        current = base.overlay(fromFile);
        problems = List.copyOf(found);
    }

    private String read(final List<AclProblem> found) {
        try {
            if (Files.size(path) > MAX_FILE_BYTES) {
                found.add(new AclProblem(path, 0, AclProblem.Severity.ERROR,
                        "file is larger than " + MAX_FILE_BYTES + " bytes"));
                return null;
            }
            final byte[] bytes = Files.readAllBytes(path);
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (final NoSuchFileException e) {
            return null;
        } catch (final CharacterCodingException e) {
            found.add(new AclProblem(path, 0, AclProblem.Severity.ERROR, "not valid UTF-8"));
            return null;
        } catch (final IOException | SecurityException e) {
            found.add(new AclProblem(path, 0, AclProblem.Severity.ERROR, "cannot read (" + e + ")"));
            return null;
        }
    }

    private Stat stat() {
        try {
            final BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
            return new Stat(true, a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS), a.fileKey());
        } catch (final IOException | SecurityException e) {
            return new Stat(false, -1, 0, null);
        }
    }

    private static int lineOf(final String problem) {
        // HostAliases words each problem "line N: ..."
        final int colon = problem.indexOf(':');
        if (!problem.startsWith("line ") || colon < 6) {
            return 0;
        }
        try {
            return Integer.parseInt(problem.substring(5, colon));
        } catch (final NumberFormatException e) {
            return 0;
        }
    }
}
