package net.fips.control.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.AclSnapshot;

/** Reload on change, polled from the control thread's tick; malformed reloads keep the old ACL. */
class AclWatcherTest {
    @TempDir
    Path dir;

    private Path allow;
    private Path deny;
    private Path hosts;

    @BeforeEach
    void paths() {
        allow = dir.resolve("peers.allow");
        deny = dir.resolve("peers.deny");
        hosts = dir.resolve("hosts");
    }

    private AclWatcher watcher() {
        return new AclWatcher(allow, deny, hosts, HostAliases.EMPTY);
    }

    @Test
    void missingFilesAreOpenAndUnchangedPollsDoNothing() {
        final AclWatcher w = watcher();
        assertEquals(List.of(), w.initialProblems());
        assertEquals(AclDecision.DEFAULT_ALLOW, w.decide(PeerAclTest.peer(1)));
        final PeerAcl before = w.current();
        assertEquals(AclWatcher.Outcome.UNCHANGED, w.pollForChanges().outcome());
        assertSame(before, w.current());
    }

    @Test
    void reloadsWhenContentChangesEvenWithTheSameMtime() throws Exception {
        Files.writeString(deny, PeerAclTest.A + "\n");
        final FileTime t = Files.getLastModifiedTime(deny);
        final AclWatcher w = watcher();
        assertEquals(AclDecision.DENYLIST_MATCH, w.decide(PeerAclTest.peer(1)));

        // Same length, same mtime: only the content hash can tell.
        Files.writeString(deny, PeerAclTest.B + "\n");
        Files.setLastModifiedTime(deny, t);
        final AclWatcher.PollResult r = w.pollForChanges();
        assertEquals(AclWatcher.Outcome.RELOADED, r.outcome());
        assertEquals(AclDecision.DEFAULT_ALLOW, w.decide(PeerAclTest.peer(1)));
        assertEquals(AclDecision.DENYLIST_MATCH, w.decide(PeerAclTest.peer(2)));
        assertEquals(AclWatcher.Outcome.UNCHANGED, w.pollForChanges().outcome());
    }

    @Test
    void touchWithoutContentChangeReloadsHarmlessly() throws Exception {
        Files.writeString(allow, PeerAclTest.A + "\n");
        final AclWatcher w = watcher();
        Files.setLastModifiedTime(allow, FileTime.fromMillis(Files.getLastModifiedTime(allow).toMillis() + 5000));
        assertEquals(AclWatcher.Outcome.RELOADED, w.pollForChanges().outcome());
        assertEquals(AclDecision.ALLOWLIST_MATCH, w.decide(PeerAclTest.peer(1)));
    }

    @Test
    void fileRemovalReopens() throws Exception {
        Files.writeString(allow, "ALL\n");
        final AclWatcher w = watcher();
        assertTrue(AclSnapshot.of(w).allowAll());
        Files.delete(allow);
        assertEquals(AclWatcher.Outcome.RELOADED, w.pollForChanges().outcome());
        assertEquals("default_open", AclSnapshot.of(w).effectiveMode());
    }

    @Test
    void malformedReloadKeepsTheOldAclAndReportsOnce() throws Exception {
        Files.writeString(deny, PeerAclTest.A + "\n");
        final AclWatcher w = watcher();
        final PeerAcl good = w.current();

        Files.writeString(deny, PeerAclTest.B + "\n" + PeerAclTest.A + " oops\n");
        final AclWatcher.PollResult r = w.pollForChanges();
        assertEquals(AclWatcher.Outcome.REJECTED, r.outcome());
        assertEquals(1, r.problems().size());
        assertEquals(2, r.problems().get(0).line());
        assertEquals(deny, r.problems().get(0).file());
        assertSame(good, w.current());
        assertEquals(AclDecision.DENYLIST_MATCH, w.decide(PeerAclTest.peer(1)));
        assertEquals(AclDecision.DEFAULT_ALLOW, w.decide(PeerAclTest.peer(2)));
        // The same bad content is not reported again on the next tick.
        assertEquals(AclWatcher.Outcome.UNCHANGED, w.pollForChanges().outcome());

        Files.writeString(deny, PeerAclTest.B + "\n");
        assertEquals(AclWatcher.Outcome.RELOADED, w.pollForChanges().outcome());
        assertEquals(AclDecision.DEFAULT_ALLOW, w.decide(PeerAclTest.peer(1)));
        assertEquals(AclDecision.DENYLIST_MATCH, w.decide(PeerAclTest.peer(2)));
    }

    @Test
    void initialLoadFollowsTheReferenceAndAppliesValidLines() throws Exception {
        Files.writeString(deny, "garbage here\n" + PeerAclTest.A + "\n");
        final AclWatcher w = watcher();
        assertEquals(1, w.initialProblems().size());
        assertEquals(AclDecision.DENYLIST_MATCH, w.decide(PeerAclTest.peer(1)));
    }

    @Test
    void hostsFileChangeResolvesAliases() throws Exception {
        Files.writeString(allow, "node-a\n");
        Files.writeString(deny, "ALL\n");
        final AclWatcher w = watcher();
        assertEquals(AclProblem.Severity.WARNING, w.initialProblems().get(0).severity());
        assertEquals(AclDecision.DENYLIST_MATCH, w.decide(PeerAclTest.peer(1)));

        Files.writeString(hosts, "node-a " + PeerAclTest.A + "\n");
        final AclWatcher.PollResult r = w.pollForChanges();
        assertEquals(AclWatcher.Outcome.RELOADED, r.outcome());
        assertEquals(List.of(), r.problems());
        assertEquals(AclDecision.ALLOWLIST_MATCH, w.decide(PeerAclTest.peer(1)));
        assertEquals(List.of(PeerAclTest.A), AclSnapshot.of(w).allowEntries());
        assertEquals(List.of("node-a"), AclSnapshot.of(w).allowFileEntries());

        // Removing the alias is not malformed: the entry just stops resolving.
        Files.delete(hosts);
        final AclWatcher.PollResult gone = w.pollForChanges();
        assertEquals(AclWatcher.Outcome.RELOADED, gone.outcome());
        assertEquals(AclProblem.Severity.WARNING, gone.problems().get(0).severity());
        assertEquals(AclDecision.DENYLIST_MATCH, w.decide(PeerAclTest.peer(1)));
    }

    @Test
    void configAliasesAreUsedAndHostsFileWins() throws Exception {
        Files.writeString(allow, "peer-x\n");
        final AclWatcher w = new AclWatcher(allow, deny, hosts,
                HostAliases.of(Map.of("peer-x", PeerAclTest.A)));
        assertEquals(AclDecision.ALLOWLIST_MATCH, w.decide(PeerAclTest.peer(1)));
        Files.writeString(hosts, "peer-x " + PeerAclTest.B + "\n");
        w.pollForChanges();
        assertEquals(AclDecision.DEFAULT_ALLOW, w.decide(PeerAclTest.peer(1)));
        assertEquals(AclDecision.ALLOWLIST_MATCH, w.decide(PeerAclTest.peer(2)));
    }
}
