package net.fips.control.ble;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static net.fips.testing.Await.until;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import org.freedesktop.dbus.connections.impl.DBusConnection;
import org.freedesktop.dbus.connections.impl.DBusConnectionBuilder;
import org.freedesktop.dbus.interfaces.DBus;

import net.fips.control.ble.dbus.BluezMockControl;
import net.fips.control.ble.dbus.DBusMockControl;

/**
 * A private D-Bus daemon (never the system bus) with python-dbusmock's bluez5 template on it. Tests that need it
 * skip, naming what is missing, when dbus-daemon or python3-dbusmock is not installed.
 */
final class MockBluez implements AutoCloseable {
    private static final long DEADLINE_MS = 20_000;
    /** How long a test waits for the mock or the bus. */
    static final Duration DEADLINE = Duration.ofMillis(DEADLINE_MS);

    final Path dir;
    final String address;
    private final Process daemon;
    private Process mock;
    final DBusConnection conn;

    private MockBluez(final Path dir, final String address, final Process daemon, final DBusConnection conn) {
        this.dir = dir;
        this.address = address;
        this.daemon = daemon;
        this.conn = conn;
    }

    static String python() {
        return new File("/usr/bin/python3").canExecute() ? "/usr/bin/python3" : "python3";
    }

    /** Skips the calling test unless dbus-daemon and python3-dbusmock are installed. */
    static void assumeAvailable() {
        assumeTrue(run("dbus-daemon", "--version"), "dbus-daemon not installed: skipping the mock-BlueZ D-Bus tests");
        assumeTrue(run(python(), "-c", "import dbusmock"),
                "python3-dbusmock not installed (python3 -c 'import dbusmock' fails): skipping the mock-BlueZ tests");
    }

    private static boolean run(final String... cmd) {
        try {
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (final IOException e) {
            return false;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts a private bus only (no BlueZ on it). */
    static MockBluez busOnly() throws Exception {
        assumeAvailable();
        final Path dir = Files.createTempDirectory("fips-dbus-");
        final String addr = "unix:path=" + dir.resolve("bus");
        final Process d = new ProcessBuilder("dbus-daemon", "--config-file=/usr/share/dbus-1/session.conf",
                "--nofork", "--print-address=1", "--address=" + addr).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        final String printed;
        try {
            printed = CompletableFuture.supplyAsync(() -> {
                try {
                    return new BufferedReader(new InputStreamReader(d.getInputStream(), StandardCharsets.UTF_8))
                            .readLine();
                } catch (final IOException e) {
                    return null;
                }
            }).get(DEADLINE_MS, TimeUnit.MILLISECONDS);
        } catch (final Exception e) {
            d.destroyForcibly();
            throw e;
        }
        if (printed == null || printed.isBlank()) {
            d.destroyForcibly();
            throw new IllegalStateException("dbus-daemon printed no address");
        }
        final DBusConnection c = DBusConnectionBuilder.forAddress(printed.trim()).withShared(false).build();
        return new MockBluez(dir, printed.trim(), d, c);
    }

    /** Starts a private bus with the bluez5 template on it, and waits until {@code org.bluez} is owned. */
    static MockBluez start() throws Exception {
        final MockBluez m = busOnly();
        try {
            final ProcessBuilder pb = new ProcessBuilder(python(), "-m", "dbusmock", "--template", "bluez5")
                    .redirectErrorStream(true).redirectOutput(m.dir.resolve("dbusmock.log").toFile());
            // the template connects to the "system" bus: point that, for the mock process only, at our private bus
            pb.environment().put("DBUS_SYSTEM_BUS_ADDRESS", m.address);
            pb.environment().put("DBUS_SESSION_BUS_ADDRESS", m.address);
            m.mock = pb.start();
            final DBus bus = m.conn.getRemoteObject("org.freedesktop.DBus", "/org/freedesktop/DBus", DBus.class);
            until(DEADLINE, () -> bus.NameHasOwner("org.bluez"), () -> "org.bluez on the private bus");
            return m;
        } catch (final Exception | Error e) {
            m.close();
            throw e;
        }
    }

    BluezMockControl bluezMock() throws Exception {
        return conn.getRemoteObject("org.bluez", "/", BluezMockControl.class);
    }

    DBusMockControl mockAt(final String path) throws Exception {
        return conn.getRemoteObject("org.bluez", path, DBusMockControl.class);
    }

    @Override
    public void close() {
        try {
            conn.close();
        } catch (final IOException ignored) {
            // going away
        }
        for (final Process p : new Process[] {mock, daemon}) {
            if (p != null) {
                p.destroy();
                try {
                    if (!p.waitFor(5, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (final InterruptedException e) {
                    p.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        }
        try (var s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (final IOException ignored) {
            // temp dir
        }
    }
}
