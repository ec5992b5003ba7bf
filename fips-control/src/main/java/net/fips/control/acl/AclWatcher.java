package net.fips.control.acl;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import net.fips.control.identity.PeerIdentity;

/**
 * Keeps the live {@link PeerAcl} in step with {@code peers.allow}, {@code peers.deny} and the hosts file. It has
 * no thread of its own: the control thread calls {@link #pollForChanges()} from its maintenance tick, as the
 * reference reloads on its tick. {@link #decide} and {@link #current()} may be called from any thread.
 *
 * <p>Change detection compares each file's existence, size, modification time and SHA-256 of its content. The
 * hash matters: two writes within one timestamp granule leave the mtime unchanged, and an unchanged content with
 * a touched mtime needs no reload. The files are small and capped at {@link PeerAcl#MAX_FILE_BYTES}.
 *
 * <p>One deliberate difference from the reference: a reload that finds a malformed line (or an unreadable
 * file) is refused and the previous ACL stays in force, with the problems reported once. The reference would
 * apply the rest of the file, which can silently drop a deny entry in a half-edited file. The initial load
 * follows the reference (valid lines apply, problems are reported), since there is no previous ACL to keep.
 * Unknown aliases are only warnings either way: they start to apply when the hosts file names them.
 */
public final class AclWatcher {
    /** What a poll did. */
    public enum Outcome {
        /** No file changed. */
        UNCHANGED,
        /** A file changed and the new ACL is in force ({@code problems} may hold warnings). */
        RELOADED,
        /** A file changed but is malformed; the previous ACL stays in force. */
        REJECTED
    }

    /**
     * @param outcome  what happened
     * @param problems problems of the new files (empty when unchanged)
     */
    public record PollResult(Outcome outcome, List<AclProblem> problems) {
        /** Freezes the list. */
        public PollResult {
            Objects.requireNonNull(outcome, "outcome");
            problems = List.copyOf(problems);
        }
    }

    /** Existence, size, mtime and content hash of one file; null hash when absent or unreadable. */
    private record FileState(boolean exists, long size, long mtimeNanos, byte[] sha256, String text,
            AclProblem problem) {
        boolean sameAs(final FileState o) {
            return exists == o.exists && size == o.size && mtimeNanos == o.mtimeNanos
                    && Arrays.equals(sha256, o.sha256) && Objects.equals(problem, o.problem);
        }
    }

    private final Path allowFile;
    private final Path denyFile;
    private final Path hostsFile;
    private final HostAliases configAliases;
    private FileState[] states;
    private volatile PeerAcl current;
    private final List<AclProblem> initialProblems;

    /**
     * Loads the files now.
     *
     * @param allowFile     {@code peers.allow}
     * @param denyFile      {@code peers.deny}
     * @param hostsFile     the hosts file whose names may appear in the ACL
     * @param configAliases aliases from the YAML peers; the hosts file wins a conflict
     */
    public AclWatcher(final Path allowFile, final Path denyFile, final Path hostsFile,
            final HostAliases configAliases) {
        this.allowFile = Objects.requireNonNull(allowFile, "allowFile");
        this.denyFile = Objects.requireNonNull(denyFile, "denyFile");
        this.hostsFile = Objects.requireNonNull(hostsFile, "hostsFile");
        this.configAliases = Objects.requireNonNull(configAliases, "configAliases");
        this.states = snapshotStates();
        final PeerAcl.Loaded loaded = build(states);
        this.current = loaded.acl();
        this.initialProblems = loaded.problems();
    }

    /**
     * @param configAliases aliases from the YAML peers
     * @return a watcher of the reference's fixed paths {@code /etc/fips/peers.allow}, {@code peers.deny},
     *         {@code hosts}
     */
    public static AclWatcher system(final HostAliases configAliases) {
        return new AclWatcher(Path.of(PeerAcl.DEFAULT_ALLOW_PATH), Path.of(PeerAcl.DEFAULT_DENY_PATH),
                Path.of(HostAliases.DEFAULT_HOSTS_PATH), configAliases);
    }

    /** @return problems of the initial load, worth a WARN line each */
    public List<AclProblem> initialProblems() {
        return initialProblems;
    }

    /** @return the ACL in force */
    public PeerAcl current() {
        return current;
    }

    /**
     * @param peer the peer
     * @return the decision of the ACL in force
     */
    public AclDecision decide(final PeerIdentity peer) {
        return current.decide(peer);
    }

    /** @return the allow file's path ({@code peers.allow}) */
    public Path allowFile() {
        return allowFile;
    }

    /** @return the deny file's path ({@code peers.deny}) */
    public Path denyFile() {
        return denyFile;
    }

    /**
     * Checks the files and reloads when one changed. Call from the control thread's timer; never concurrently.
     *
     * @return what happened, with the new files' problems
     */
    public PollResult pollForChanges() {
        final FileState[] now = snapshotStates();
        boolean changed = false;
        for (int i = 0; i < now.length; i++) {
            changed |= !now[i].sameAs(states[i]);
        }
        if (!changed) {
            return new PollResult(Outcome.UNCHANGED, List.of());
        }
        // Remember what was seen either way, so a rejected file is reported once, not on every tick.
        states = now;
        final PeerAcl.Loaded loaded = build(now);
        if (loaded.hasErrors()) {
            return new PollResult(Outcome.REJECTED, loaded.problems());
        }
        current = loaded.acl();
        return new PollResult(Outcome.RELOADED, loaded.problems());
    }

    private FileState[] snapshotStates() {
        return new FileState[] {state(allowFile), state(denyFile), state(hostsFile)};
    }

    private PeerAcl.Loaded build(final FileState[] s) {
        final List<AclProblem> problems = new ArrayList<>();
        HostAliases aliases = configAliases;
        if (s[2].text() != null) {
            final HostAliases.Parsed hosts = HostAliases.parseHostsFile(s[2].text());
            for (final String p : hosts.problems()) {
                // A bad hosts line is skipped, as in the reference; it does not make the ACL malformed.
                problems.add(new AclProblem(hostsFile, lineOf(p), AclProblem.Severity.WARNING, p));
            }
            aliases = aliases.overlay(hosts.aliases());
        }
        for (final FileState f : s) {
            if (f.problem() != null) {
                problems.add(f.problem());
            }
        }
        final PeerAcl.Loaded parsed = PeerAcl.parse(allowFile, s[0].text(), denyFile, s[1].text(), aliases);
        problems.addAll(parsed.problems());
        return new PeerAcl.Loaded(parsed.acl(), problems);
    }

    private static int lineOf(final String hostsProblem) {
        // HostAliases words its problems "line N: ..."
        final int colon = hostsProblem.indexOf(':');
        try {
            return Integer.parseInt(hostsProblem.substring(5, colon));
        } catch (final RuntimeException e) {
            return 0;
        }
    }

    private static FileState state(final Path file) {
        try {
            final BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
            final long mtime = attrs.lastModifiedTime().to(TimeUnit.NANOSECONDS);
            if (attrs.size() > PeerAcl.MAX_FILE_BYTES) {
                return new FileState(true, attrs.size(), mtime, null, null, new AclProblem(file, 0,
                        AclProblem.Severity.ERROR, "file is larger than " + PeerAcl.MAX_FILE_BYTES + " bytes"));
            }
            final byte[] bytes = Files.readAllBytes(file);
            final byte[] hash = MessageDigest.getInstance("SHA-256").digest(bytes);
            try {
                return new FileState(true, bytes.length, mtime, hash, PeerAcl.decode(bytes), null);
            } catch (final CharacterCodingException e) {
                return new FileState(true, bytes.length, mtime, hash, null,
                        new AclProblem(file, 0, AclProblem.Severity.ERROR, "not valid UTF-8"));
            }
        } catch (final NoSuchFileException e) {
            return new FileState(false, -1, 0, null, null, null);
        } catch (final IOException | SecurityException e) {
            return new FileState(true, -1, 0, null, null,
                    new AclProblem(file, 0, AclProblem.Severity.ERROR, "cannot read (" + e + ")"));
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is a required JDK algorithm", e);
        }
    }
}
