package net.fips.control.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.tor.TorCounters;
import net.fips.testing.FreePorts;

/** The monitoring loop's polls against scripted control ports: snapshot, milestones, control_errors. */
class TorMonitorTaskTest {
    private static ScriptedControlPort snapshot(final ScriptedControlPort s, final int progress) {
        return s.getinfo("status/bootstrap-phase",
                        "250-status/bootstrap-phase=NOTICE BOOTSTRAP PROGRESS=" + progress + " TAG=x\r\n250 OK\r\n")
                .getinfo("status/circuit-established", "250-status/circuit-established=1\r\n250 OK\r\n")
                .getinfo("traffic/read", "250-traffic/read=1\r\n250 OK\r\n")
                .getinfo("traffic/written", "250-traffic/written=2\r\n250 OK\r\n")
                .getinfo("network-liveness", "250-network-liveness=up\r\n250 OK\r\n")
                .getinfo("version", "250-version=0.4.9.11\r\n250 OK\r\n")
                .getinfo("dormant", "250-dormant=0\r\n250 OK\r\n");
    }

    @Test
    void aPollAuthenticatesOnceTakesTheSnapshotAndLogsMilestones() throws Exception {
        final TorCounters counters = new TorCounters();
        try (ScriptedControlPort s = snapshot(snapshot(new ScriptedControlPort()
                .expect("AUTHENTICATE \"pw\"\r\n").send("250 OK\r\n"), 60), 100).hold().start();
             TorMonitorTask task = new TorMonitorTask("tor", s.address(), new ControlAuth.Password("pw"), counters,
                     System::nanoTime)) {
            assertNull(task.latest());
            assertEquals(List.of("Tor bootstrap 25%", "Tor bootstrap 50%"),
                    task.pollOnce().stream().map(TorMonitor.Event::message).toList());
            assertEquals(60, task.latest().bootstrap());
            assertEquals(List.of("Tor bootstrap 75%", "Tor bootstrap 100%"),
                    task.pollOnce().stream().map(TorMonitor.Event::message).toList());
            assertEquals("up", task.latest().networkLiveness());
            assertEquals(0, counters.controlErrors());
        }
    }

    @Test
    void connectAuthAndSnapshotFailuresCountControlErrorsAndKeepTheLastSnapshot() throws Exception {
        final TorCounters counters = new TorCounters();
        final int closed = FreePorts.tcp();
        try (TorMonitorTask task = new TorMonitorTask("tor", "127.0.0.1:" + closed, new ControlAuth.Password("x"),
                counters, System::nanoTime)) {
            assertEquals(TorControlException.Kind.CONNECT_FAILED,
                    assertThrows(TorControlException.class, task::connect).kind());
            assertTrue(task.pollOnce().isEmpty());
            assertEquals(2, counters.controlErrors());
        }
        try (ScriptedControlPort s = new ScriptedControlPort().expect("AUTHENTICATE \"x\"\r\n")
                .send("515 Authentication failed\r\n").hangUp().start();
             TorMonitorTask task = new TorMonitorTask("tor", s.address(), new ControlAuth.Password("x"), counters,
                     System::nanoTime)) {
            assertEquals(TorControlException.Kind.AUTH_FAILED,
                    assertThrows(TorControlException.class, task::connect).kind());
            assertEquals(3, counters.controlErrors());
        }
        try (ScriptedControlPort s = snapshot(new ScriptedControlPort().expect("AUTHENTICATE \"x\"\r\n")
                .send("250 OK\r\n"), 100).expect("GETINFO status/bootstrap-phase\r\n").hangUp().start();
             TorMonitorTask task = new TorMonitorTask("tor", s.address(), new ControlAuth.Password("x"), counters,
                     System::nanoTime)) {
            task.connect();
            task.pollOnce();
            assertEquals(100, task.latest().bootstrap());
            assertTrue(task.pollOnce().isEmpty(), "the connection dropped mid-snapshot");
            assertEquals(4, counters.controlErrors());
            assertEquals(100, task.latest().bootstrap(), "the last good snapshot stays");
        }
    }
}
