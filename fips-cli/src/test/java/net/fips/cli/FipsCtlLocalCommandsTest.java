package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.control.identity.NodeIdentity;

/**
 * fipsctl's commands and errors that need no daemon answer: help, {@code keygen}, {@code completion}, usage
 * errors and a missing daemon.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FipsCtlLocalCommandsTest extends FipsCtlHarness {

    @Test
    void everyLeafCommandHasHelp() {
        for (final String[] leaf : new String[][] {{"show", "status"}, {"show", "peers"}, {"show", "links"},
            {"show", "connections"}, {"show", "transports"}, {"show", "tree"}, {"show", "bloom"}, {"show", "cache"},
            {"show", "routing"}, {"show", "identity-cache"}, {"acl", "show"}, {"stats", "list"}, {"stats", "metrics"},
            {"stats", "peers"}, {"stats", "history"}, {"connect"}, {"disconnect"}, {"keygen"}, {"completion"}}) {
            final String[] args = Arrays.copyOf(leaf, leaf.length + 1);
            args[leaf.length] = "--help";
            final Result r = runRaw(args);
            assertEquals(0, r.code(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: fipsctl " + String.join(" ", leaf)), r.out());
        }
    }

    @Test
    void noDaemonExitsTwoAndNamesTheSocket() {
        final Path missing = dir.resolve("nope.sock");
        final Result r = runRaw("--socket", missing.toString(), "show", "status");
        assertEquals(2, r.code());
        assertTrue(r.err().contains(missing.toString()), r.err());
        assertTrue(r.err().contains("Is the FIPS daemon running?"), r.err());
    }

    @Test
    void keygenPrintsAMatchingPairOrWritesFiles() throws Exception {
        final Result r = runRaw("keygen", "--stdout");
        assertEquals(0, r.code());
        final String[] lines = r.out().strip().split("\n");
        assertEquals(2, lines.length);
        assertEquals(lines[1], NodeIdentity.fromNsec(lines[0]).npub());

        final Path keys = dir.resolve("keys");
        final Result w = runRaw("keygen", "-d", keys.toString());
        assertEquals(0, w.code(), w.err());
        final NodeIdentity id = NodeIdentity.fromNsec(Files.readString(keys.resolve("fips.key")).strip());
        assertEquals(id.npub() + "\n", Files.readString(keys.resolve("fips.pub")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                keys.resolve("fips.key"))));
        assertTrue(w.err().startsWith(id.npub()), w.err());

        final Result again = runRaw("keygen", "-d", keys.toString());
        assertEquals(1, again.code());
        assertTrue(again.err().contains("key file already exists"), again.err());
        assertEquals(0, runRaw("keygen", "-d", keys.toString(), "--force").code());
        assertFalse(Files.readString(keys.resolve("fips.key")).strip().equals(id.nsec()));
    }

    @Test
    void completionHelpAndUsage() {
        final Result c = runRaw("completion");
        assertEquals(0, c.code());
        assertTrue(c.out().contains("complete -F") && c.out().contains("fipsctl"), c.out());
        final Result h = runRaw("--help");
        assertEquals(0, h.code());
        assertTrue(h.out().contains("--json") && h.out().contains("Exit status"), h.out());
        assertEquals(FipsCtl.EXIT_USAGE, runRaw("show", "bogus").code());
        assertEquals(FipsCtl.EXIT_USAGE, runRaw().code());
    }
}
