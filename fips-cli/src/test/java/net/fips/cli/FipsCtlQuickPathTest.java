package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The quick path of the plain queries ({@link QuickCtl}) prints what picocli prints, and leaves everything else
 * to picocli.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FipsCtlQuickPathTest extends FipsCtlHarness {

    @Test
    void quickPathPrintsWhatPicocliPrintsForEveryQuery() {
        final String sock = server.path().toString();
        for (final boolean terminal : new boolean[] {true, false}) {
            FipsCtl.stdoutIsTerminal = () -> terminal;
            for (final Query q : Query.values()) {
                for (final String[] args : List.of(
                        new String[] {"-s", sock, q.group, q.name},
                        new String[] {"--socket=" + sock, "--json", q.group, q.name},
                        new String[] {"--socket", sock, "--hosts-file", "/nonexistent", q.group, "--table", q.name},
                        new String[] {"-s", sock, q.group, q.name, "--json"})) {
                    final Result quick = runQuick(args);
                    final Result picocli = runPicocli(args);
                    final String what = String.join(" ", args) + " (terminal " + terminal + ")";
                    assertTrue(quick.code() != QuickCtl.NOT_HANDLED, "quick path declined " + what);
                    assertEquals(picocli, quick, what);
                    // The stand-in daemon answers most queries; the others are its refusal, the same both ways.
                    assertTrue(quick.code() == 0 ? !quick.out().isBlank() : quick.err().startsWith("error: "),
                            what + ": " + quick);
                }
            }
        }
    }

    @Test
    void quickPathLeavesEverythingElseToPicocli() {
        final String sock = server.path().toString();
        for (final String[] args : List.of(
                new String[] {}, new String[] {"show"}, new String[] {"show", "nonsense"},
                new String[] {"-s", sock, "show", "status", "--help"}, new String[] {"-h"}, new String[] {"-V"},
                new String[] {"--json", "--table", "show", "status"}, new String[] {"show", "status", "extra"},
                new String[] {"show", "status", "--json", "--json"}, new String[] {"-s"},
                new String[] {"-s", sock, "-s", sock, "show", "status"}, new String[] {"-s", "--json", "show", "peers"},
                new String[] {"-s" + sock, "show", "status"}, new String[] {"--", "show", "status"},
                new String[] {"@args", "show"}, new String[] {"show", "-s", sock, "status"},
                new String[] {"stats", "history", "srtt"}, new String[] {"connect", "npub1x", "1.2.3.4:1"},
                new String[] {"top"}, new String[] {"acl", "show", "--bogus"})) {
            assertEquals(new Result(QuickCtl.NOT_HANDLED, "", ""), runQuick(args), String.join(" ", args));
        }
    }

    @Test
    void quickPathReportsAMissingDaemonAsPicocliDoes() {
        final String[] args = {"-s", dir.resolve("absent.sock").toString(), "show", "peers"};
        final Result quick = runQuick(args);
        assertEquals(runPicocli(args), quick);
        assertEquals(FipsCtl.EXIT_NO_DAEMON, quick.code());
        assertTrue(quick.err().startsWith("error: cannot connect to "), quick.err());
    }
}
