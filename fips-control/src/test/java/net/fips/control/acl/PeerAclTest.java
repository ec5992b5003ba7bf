package net.fips.control.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.ArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import net.fips.control.ctl.AclSnapshot;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.ctl.ControlJson;
import net.fips.control.identity.TestIdentities;

/** peers.allow / peers.deny semantics of operator.md §4.3. */
class PeerAclTest {
    static final Path ALLOW = Path.of("/etc/fips/peers.allow");
    static final Path DENY = Path.of("/etc/fips/peers.deny");

    static PeerIdentity peer(final int seed) {
        final byte[] secret = new byte[32];
        secret[0] = 2;
        secret[31] = (byte) seed;
        return TestIdentities.of(secret).toPeer();
    }

    static final String A = peer(1).npub();
    static final String B = peer(2).npub();
    static final String C = peer(3).npub();

    static Stream<Arguments> decisions() {
        // allow text, deny text (null = missing file), peer, expected decision, mode, default decision
        return Stream.of(
                Arguments.of(null, null, A, AclDecision.DEFAULT_ALLOW, "default_open", "allow"),
                Arguments.of("", "", A, AclDecision.DEFAULT_ALLOW, "default_open", "allow"),
                Arguments.of(A, null, A, AclDecision.ALLOWLIST_MATCH, "allowlist", "allow"),
                // An allowlist alone excludes nobody.
                Arguments.of(A, null, B, AclDecision.DEFAULT_ALLOW, "allowlist", "allow"),
                Arguments.of(null, A, A, AclDecision.DENYLIST_MATCH, "denylist", "allow"),
                Arguments.of(null, A, B, AclDecision.DEFAULT_ALLOW, "denylist", "allow"),
                Arguments.of(A, B, B, AclDecision.DENYLIST_MATCH, "allow_then_deny", "allow"),
                Arguments.of(A, B, C, AclDecision.DEFAULT_ALLOW, "allow_then_deny", "allow"),
                // Allow is tested first: a peer in both lists is allowed.
                Arguments.of(A, A, A, AclDecision.ALLOWLIST_MATCH, "allow_then_deny", "allow"),
                Arguments.of(A, "ALL", A, AclDecision.ALLOWLIST_MATCH, "allow_then_deny_all", "deny"),
                Arguments.of(A, "all", B, AclDecision.DENYLIST_MATCH, "allow_then_deny_all", "deny"),
                Arguments.of(null, "All", A, AclDecision.DENYLIST_MATCH, "deny_all", "deny"),
                Arguments.of("ALL", A, A, AclDecision.ALLOWLIST_MATCH, "allow_all", "allow"),
                Arguments.of("ALL", "ALL", B, AclDecision.ALLOWLIST_MATCH, "allow_all", "allow"));
    }

    @ParameterizedTest
    @MethodSource("decisions")
    void decisionTable(final String allow, final String deny, final String peer, final AclDecision expected,
            final String mode, final String defaultDecision) throws Exception {
        final PeerAcl.Loaded loaded = PeerAcl.parse(ALLOW, allow, DENY, deny, HostAliases.EMPTY);
        assertEquals(List.of(), loaded.problems());
        final PeerAcl acl = loaded.acl();
        assertEquals(expected, acl.decide(PeerIdentity.fromNpub(peer)));
        assertEquals(mode, acl.effectiveMode());
        assertEquals(defaultDecision, acl.defaultDecision());
        assertEquals(!"default_open".equals(mode), !acl.isEmpty());
    }

    @Test
    void decisionReasonsAreTheReferenceWords() {
        assertEquals("allowlist match", AclDecision.ALLOWLIST_MATCH.reason());
        assertEquals("denylist match", AclDecision.DENYLIST_MATCH.reason());
        assertEquals("default allow", AclDecision.DEFAULT_ALLOW.reason());
        assertTrue(AclDecision.DEFAULT_ALLOW.allowed());
        assertEquals(AclDecision.Verdict.DENY, AclDecision.DENYLIST_MATCH.verdict());
    }

    @Test
    void commentsBlankLinesAndInlineComments() throws Exception {
        final String text = "# allowed peers\n\n   \n" + A + "   # inline comment\r\n\t" + B + "\n#" + C + "\n";
        final PeerAcl.Loaded l = PeerAcl.parse(ALLOW, text, DENY, "ALL # everyone else\n", HostAliases.EMPTY);
        assertEquals(List.of(), l.problems());
        assertEquals(AclDecision.ALLOWLIST_MATCH, l.acl().decide(peer(1)));
        assertEquals(AclDecision.ALLOWLIST_MATCH, l.acl().decide(peer(2)));
        assertEquals(AclDecision.DENYLIST_MATCH, l.acl().decide(peer(3)));
    }

    @Test
    void malformedLinesAreErrorsWithLineNumbersAndSkipped() throws Exception {
        final String hex = HexFormat.of().formatHex(peer(3).publicKey());
        final String badNpub = A.substring(0, A.length() - 1) + (A.endsWith("q") ? "p" : "q");
        final String text = A + "\n" + badNpub + "\ntwo tokens\n" + hex + "\nbad_name!\nunknown-host\n";
        final PeerAcl.Loaded l = PeerAcl.parse(ALLOW, text, DENY, null, HostAliases.EMPTY);
        final List<AclProblem> p = l.problems();
        assertEquals(5, p.size(), p.toString());
        assertEquals(List.of(2, 3, 4, 5, 6), p.stream().map(AclProblem::line).toList());
        assertEquals(List.of(AclProblem.Severity.ERROR, AclProblem.Severity.ERROR, AclProblem.Severity.ERROR,
                AclProblem.Severity.ERROR, AclProblem.Severity.WARNING),
                p.stream().map(AclProblem::severity).toList());
        assertTrue(p.get(0).message().startsWith("invalid npub"), p.get(0).toString());
        assertTrue(p.get(1).message().startsWith("expected one entry per line, got 2 tokens"));
        assertTrue(p.get(2).message().startsWith("hex keys are not accepted"));
        assertTrue(p.get(4).message().startsWith("unknown alias \"unknown-host\""));
        assertEquals("/etc/fips/peers.allow:2: " + p.get(0).message(), p.get(0).toString());
        assertTrue(l.hasErrors());
        // The valid line still applies, as in the reference.
        assertEquals(List.of(A), l.acl().allowEntries());
        assertEquals(AclDecision.ALLOWLIST_MATCH, l.acl().decide(peer(1)));
    }

    @Test
    void aliasesResolveCaseInsensitivelyAndDeduplicate() {
        final HostAliases aliases = HostAliases.of(Map.of("node-a", A));
        final PeerAcl.Loaded l = PeerAcl.parse(ALLOW, "NODE-A\n" + A + "\nnode-a\n", DENY, null, aliases);
        assertEquals(List.of(), l.problems());
        assertEquals(List.of("NODE-A", A, "node-a").stream().sorted().toList(), l.acl().allowFileEntries());
        assertEquals(List.of(A), l.acl().allowEntries());
        assertEquals(AclDecision.ALLOWLIST_MATCH, l.acl().decide(peer(1)));
    }

    @Test
    void hostsFileOverridesConfigAliases() {
        final HostAliases.Parsed hosts = HostAliases.parseHostsFile(
                "# roster\nnode-a " + B + "\nbad line here\n-bad " + C + "\nnode-c notanpub\nNode-C " + C + "\n");
        assertEquals(List.of("line 3: expected 'hostname npub', got 3 fields", "line 4: invalid hostname \"-bad\"",
                "line 5: invalid npub for node-c"), hosts.problems());
        final HostAliases merged = HostAliases.of(Map.of("node-a", A)).overlay(hosts.aliases());
        assertEquals(B, merged.lookupNpub("NODE-A").orElseThrow());
        assertEquals(C, merged.lookupNpub("node-c").orElseThrow());
    }

    @Test
    void hostnameRules() {
        assertTrue(HostAliases.isValidHostname("test-us01"));
        assertTrue(HostAliases.isValidHostname("a".repeat(63)));
        assertFalse(HostAliases.isValidHostname("a".repeat(64)));
        assertFalse(HostAliases.isValidHostname("-a"));
        assertFalse(HostAliases.isValidHostname("a-"));
        assertFalse(HostAliases.isValidHostname("a.b"));
        assertFalse(HostAliases.isValidHostname("npub1abc"));
        assertFalse(HostAliases.isValidHostname(""));
    }

    @Test
    void snapshotMatchesShowAclShape(@TempDir final Path dir) throws Exception {
        final Path allow = dir.resolve("peers.allow");
        final Path deny = dir.resolve("peers.deny");
        final AclSnapshot open = AclSnapshot.of(PeerAcl.load(allow, deny, HostAliases.EMPTY).acl(), allow, deny);
        assertEquals(new AclSnapshot(allow.toString(), deny.toString(), false, "default_open", "allow", false, false,
                List.of(), List.of(), List.of(), List.of()), open);
        assertEquals(List.of("allow_file", "deny_file", "enforcement_active", "effective_mode", "default_decision",
                "allow_all", "deny_all", "allow_file_entries", "deny_file_entries", "allow_entries", "deny_entries"),
                fieldNames(open));

        // The operator.md §2.4 example: allow = {test-us01}, deny = {ALL}.
        Files.writeString(allow, "test-us01\n");
        Files.writeString(deny, "ALL\n");
        final PeerAcl.Loaded l = PeerAcl.load(allow, deny, HostAliases.of(Map.of("test-us01", A)));
        final AclSnapshot s = AclSnapshot.of(l.acl(), allow, deny);
        assertTrue(s.enforcementActive());
        assertEquals("allow_then_deny_all", s.effectiveMode());
        assertEquals("deny", s.defaultDecision());
        assertTrue(s.denyAll());
        assertEquals(List.of("test-us01"), s.allowFileEntries());
        assertEquals(List.of(A), s.allowEntries());
    }

    @Test
    void unreadableFileIsAnErrorAndCountsAsEmpty(@TempDir final Path dir) throws Exception {
        final Path allow = Files.createDirectory(dir.resolve("peers.allow"));
        final PeerAcl.Loaded l = PeerAcl.load(allow, dir.resolve("peers.deny"), HostAliases.EMPTY);
        assertTrue(l.hasErrors());
        assertEquals(0, l.problems().get(0).line());
        assertTrue(l.acl().isEmpty());
        assertEquals(AclDecision.DEFAULT_ALLOW, l.acl().decide(peer(1)));
    }

    /** The JSON keys the control socket writes for a snapshot, in order. */
    private static List<String> fieldNames(final AclSnapshot snapshot) {
        final List<String> names = new ArrayList<>();
        ControlJson.MAPPER.valueToTree(snapshot).fieldNames().forEachRemaining(names::add);
        return names;
    }
}
