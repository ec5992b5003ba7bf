package net.fips.control.acl;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The peer ACL of {@code peers.allow} and {@code peers.deny} (operator.md §4.3), immutable.
 *
 * <p>File syntax: everything from {@code #} to the end of a line is a comment; the rest is trimmed; an empty line
 * is skipped. A line must then hold exactly one token: {@code ALL} (any case) for the wildcard, a bech32 npub,
 * or a host alias (hosts file plus YAML peer aliases). Hex keys are not accepted, as in the reference. A missing
 * file is an empty list.
 *
 * <p>Decision, in this order: allow-listed (or allow holds ALL) → allowed; else deny-listed (or deny holds ALL)
 * → denied; else allowed. So an allowlist alone excludes no one: strictness needs {@code ALL} in
 * {@code peers.deny}. The ACL only governs direct link peers.
 */
public final class PeerAcl {
    /** The reference's fixed allow file. */
    public static final String DEFAULT_ALLOW_PATH = "/etc/fips/peers.allow";
    /** The reference's fixed deny file. */
    public static final String DEFAULT_DENY_PATH = "/etc/fips/peers.deny";
    /** ACL files beyond this size are refused; a real one is a few KiB. */
    public static final int MAX_FILE_BYTES = 1 << 20;
    /** No entries: everyone is allowed by default. */
    public static final PeerAcl OPEN = new PeerAcl(new Side(), new Side());

    /** One file's content. */
    private static final class Side {
        final Set<NodeAddr> peers = new HashSet<>();
        final SortedSet<String> fileEntries = new TreeSet<>();
        final SortedSet<String> npubs = new TreeSet<>();
        boolean all;

        boolean isEmpty() {
            return peers.isEmpty() && !all;
        }
    }

    private final Side allow;
    private final Side deny;

    private PeerAcl(final Side allow, final Side deny) {
        this.allow = allow;
        this.deny = deny;
    }

    /**
     * An ACL with what was wrong while building it. Malformed lines are skipped, as in the reference.
     *
     * @param acl      the ACL
     * @param problems problems in file order
     */
    public record Loaded(PeerAcl acl, List<AclProblem> problems) {
        /** Freezes the list. */
        public Loaded {
            Objects.requireNonNull(acl, "acl");
            problems = List.copyOf(problems);
        }

        /** @return true when some problem is an {@link AclProblem.Severity#ERROR} */
        public boolean hasErrors() {
            return problems.stream().anyMatch(p -> p.severity() == AclProblem.Severity.ERROR);
        }
    }

    /**
     * Builds an ACL from file contents.
     *
     * @param allowFile named in problems
     * @param allowText the allow file's text, or null when the file does not exist
     * @param denyFile  named in problems
     * @param denyText  the deny file's text, or null when the file does not exist
     * @param aliases   names an entry may use
     * @return the ACL and its problems
     */
    public static Loaded parse(final Path allowFile, final String allowText, final Path denyFile,
            final String denyText, final HostAliases aliases) {
        final List<AclProblem> problems = new ArrayList<>();
        final Side allow = parseSide(allowFile, allowText, aliases, problems);
        final Side deny = parseSide(denyFile, denyText, aliases, problems);
        return new Loaded(new PeerAcl(allow, deny), problems);
    }

    /**
     * Reads and builds an ACL. A missing file is empty; an unreadable, non-UTF-8 or oversized one counts as empty
     * and is reported as an error.
     *
     * @param allowFile the allow file
     * @param denyFile  the deny file
     * @param aliases   names an entry may use
     * @return the ACL and its problems
     */
    public static Loaded load(final Path allowFile, final Path denyFile, final HostAliases aliases) {
        final List<AclProblem> problems = new ArrayList<>();
        final String allowText = readText(allowFile, problems).orElse(null);
        final String denyText = readText(denyFile, problems).orElse(null);
        final Loaded parsed = parse(allowFile, allowText, denyFile, denyText, aliases);
        problems.addAll(parsed.problems());
        return new Loaded(parsed.acl(), problems);
    }

    /**
     * Reads an ACL or hosts file as text: empty when it does not exist, a problem when it cannot be used.
     */
    static Optional<String> readText(final Path file, final List<AclProblem> problems) {
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                problems.add(new AclProblem(file, 0, AclProblem.Severity.ERROR,
                        "file is larger than " + MAX_FILE_BYTES + " bytes; treated as empty"));
                return Optional.empty();
            }
            return Optional.of(decode(Files.readAllBytes(file)));
        } catch (final NoSuchFileException e) {
            return Optional.empty();
        } catch (final CharacterCodingException e) {
            problems.add(new AclProblem(file, 0, AclProblem.Severity.ERROR, "not valid UTF-8; treated as empty"));
        } catch (final IOException | SecurityException e) {
            problems.add(new AclProblem(file, 0, AclProblem.Severity.ERROR, "cannot read (" + e
                    + "); treated as empty"));
        }
        return Optional.empty();
    }

    static String decode(final byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    }

    private static Side parseSide(final Path file, final String text, final HostAliases aliases,
            final List<AclProblem> problems) {
        final Side side = new Side();
        if (text == null) {
            return side;
        }
        final String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            final int lineNo = i + 1;
            final int hash = lines[i].indexOf('#');
            final String content = (hash >= 0 ? lines[i].substring(0, hash) : lines[i]).strip();
            if (content.isEmpty()) {
                continue;
            }
            final String[] tokens = content.split("[\\s\\p{Z}]+");
            if (tokens.length != 1) {
                problems.add(new AclProblem(file, lineNo, AclProblem.Severity.ERROR,
                        "expected one entry per line, got " + tokens.length + " tokens; line skipped"));
                continue;
            }
            final String entry = tokens[0];
            if (entry.equalsIgnoreCase("ALL")) {
                side.all = true;
                continue;
            }
            final Optional<PeerIdentity> peer = resolve(file, lineNo, entry, aliases, problems);
            if (peer.isPresent()) {
                side.peers.add(peer.get().nodeAddr());
                side.fileEntries.add(entry);
                side.npubs.add(peer.get().npub());
            }
        }
        return side;
    }

    private static Optional<PeerIdentity> resolve(final Path file, final int lineNo, final String entry,
            final HostAliases aliases, final List<AclProblem> problems) {
        if (entry.regionMatches(true, 0, "npub1", 0, 5)) {
            try {
                return Optional.of(PeerIdentity.fromNpub(entry));
            } catch (final IdentityFormatException e) {
                problems.add(new AclProblem(file, lineNo, AclProblem.Severity.ERROR,
                        "invalid npub \"" + entry + "\": " + e.getMessage() + "; line skipped"));
                return Optional.empty();
            }
        }
        if (!HostAliases.isValidHostname(entry)) {
            final boolean hex = entry.length() == 64 && entry.toLowerCase(Locale.ROOT).chars()
                    .allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f');
            problems.add(new AclProblem(file, lineNo, AclProblem.Severity.ERROR, hex
                    ? "hex keys are not accepted; write the npub; line skipped"
                    : "\"" + entry + "\" is neither an npub nor a valid host alias; line skipped"));
            return Optional.empty();
        }
        final Optional<String> npub = aliases.lookupNpub(entry);
        if (npub.isEmpty()) {
            problems.add(new AclProblem(file, lineNo, AclProblem.Severity.WARNING,
                    "unknown alias \"" + entry + "\" (not in the hosts file or peer aliases); skipped until it is"));
            return Optional.empty();
        }
        try {
            return Optional.of(PeerIdentity.fromNpub(npub.get()));
        } catch (final IdentityFormatException e) {
            // HostAliases only holds decodable npubs; kept for safety.
            problems.add(new AclProblem(file, lineNo, AclProblem.Severity.ERROR,
                    "alias \"" + entry + "\" maps to an invalid npub"));
            return Optional.empty();
        }
    }

    /**
     * @param peer an authenticated (or about-to-be-dialled) peer
     * @return the decision and its reason
     */
    public AclDecision decide(final PeerIdentity peer) {
        final NodeAddr addr = peer.nodeAddr();
        if (allow.all || allow.peers.contains(addr)) {
            return AclDecision.ALLOWLIST_MATCH;
        }
        if (deny.all || deny.peers.contains(addr)) {
            return AclDecision.DENYLIST_MATCH;
        }
        return AclDecision.DEFAULT_ALLOW;
    }

    /** @return true when nothing is loaded, so nothing is enforced */
    public boolean isEmpty() {
        return allow.isEmpty() && deny.isEmpty();
    }

    /**
     * @return {@code allow_all}, {@code allow_then_deny_all}, {@code allow_then_deny}, {@code allowlist},
     *         {@code deny_all}, {@code denylist} or {@code default_open}
     */
    public String effectiveMode() {
        final boolean hasAllow = !allow.peers.isEmpty();
        if (allow.all) {
            return "allow_all";
        } else if (hasAllow && deny.all) {
            return "allow_then_deny_all";
        } else if (hasAllow && !deny.peers.isEmpty()) {
            return "allow_then_deny";
        } else if (hasAllow) {
            return "allowlist";
        } else if (deny.all) {
            return "deny_all";
        } else if (!deny.peers.isEmpty()) {
            return "denylist";
        }
        return "default_open";
    }

    /** @return "deny" only when deny holds ALL and allow does not, else "allow" */
    public String defaultDecision() {
        return deny.all && !allow.all ? "deny" : "allow";
    }

    /** @return whether peers.allow holds ALL */
    public boolean allowAll() {
        return allow.all;
    }

    /** @return whether peers.deny holds ALL */
    public boolean denyAll() {
        return deny.all;
    }

    /** @return allow entries as written (npubs or aliases), sorted, deduplicated */
    public List<String> allowFileEntries() {
        return List.copyOf(allow.fileEntries);
    }

    /** @return deny entries as written, sorted, deduplicated */
    public List<String> denyFileEntries() {
        return List.copyOf(deny.fileEntries);
    }

    /** @return allowed npubs after alias resolution, sorted, deduplicated */
    public List<String> allowEntries() {
        return List.copyOf(allow.npubs);
    }

    /** @return denied npubs after alias resolution, sorted, deduplicated */
    public List<String> denyEntries() {
        return List.copyOf(deny.npubs);
    }

    @Override
    public String toString() {
        return "PeerAcl[" + effectiveMode() + ", allow=" + allow.npubs.size() + (allow.all ? "+ALL" : "")
                + ", deny=" + deny.npubs.size() + (deny.all ? "+ALL" : "") + "]";
    }
}
