package net.fips.control.config;

import java.util.Optional;
import java.util.Set;

import net.fips.control.tor.ControlAuth;
import net.fips.control.tor.TorControlClient;

/** Reads one {@code transports.tor} instance into a {@link TorConfig}, with the reference's start-time checks. */
final class TorSection {
    /** The instance's keys (for {@link Skim#instances}). */
    static final Set<String> KEYS = Set.of("mode", "socks5_addr", "connect_timeout_ms", "mtu",
            "control_addr", "control_auth", "cookie_path", "max_inbound_connections", "directory_service",
            "advertise_on_nostr", "advertised_port");

    private TorSection() {
    }

    static TorConfig read(final ConfigReader r, final Optional<String> name) {
        final TorConfig d = TorConfig.DEFAULTS;
        final TorConfig.Mode mode = r.enumValue("mode", TorConfig.Mode.class, d.mode());
        final String socks5 = r.string("socks5_addr", d.socks5Addr());
        if (!isHostPort(socks5)) {
            r.error("socks5_addr", "expected host:port or IP:port of Tor's SocksPort, got \"" + socks5 + "\"");
        }
        final long timeout = r.integer("connect_timeout_ms", d.connectTimeoutMs(), 1, Long.MAX_VALUE);
        final int mtu = (int) r.integer("mtu", d.mtu(), 1, 0xFFFF);
        final Optional<String> control = r.optString("control_addr");
        if (control.isPresent() && !TorControlClient.isUnixSocketPath(control.get()) && !isHostPort(control.get())) {
            r.error("control_addr", "expected a Unix socket path (/... or ./...) or host:port, got \""
                    + control.get() + "\"");
        }
        final String auth = r.string("control_auth", d.controlAuth());
        final String cookie = r.string("cookie_path", d.cookiePath());
        try {
            ControlAuth.parse(auth, cookie);
        } catch (final IllegalArgumentException e) {
            r.error("control_auth", e.getMessage());
        }
        final int maxInbound = r.usize("max_inbound_connections", d.maxInboundConnections());
        final boolean advertise = r.bool("advertise_on_nostr", d.advertiseOnNostr());
        final int advertisedPort = r.u16("advertised_port", d.advertisedPort());
        final boolean hasDirectory = r.has("directory_service");
        final ConfigReader ds = r.child("directory_service");
        final TorConfig.DirectoryService dd = TorConfig.DirectoryService.DEFAULTS;
        final String hostnameFile = ds.string("hostname_file", dd.hostnameFile());
        final String bind = ds.string("bind_addr", dd.bindAddr());
        if (SocketAddresses.parseLiteral(bind) == null) {
            ds.error("bind_addr", "expected an IP address with port, the target of torrc's HiddenServicePort"
                    + " (\"127.0.0.1:8443\"), got \"" + bind + "\"");
        }
        ds.finish();
        if (hasDirectory && mode == TorConfig.Mode.SOCKS5) {
            r.error("directory_service", "requires mode: directory, not socks5");
        } else if (hasDirectory && mode == TorConfig.Mode.CONTROL_PORT) {
            r.warn("directory_service", "only directory mode uses it; ignored in control_port mode");
        }
        r.finish();
        return new TorConfig(name, mode, socks5, timeout, mtu, control, auth, cookie, maxInbound,
                new TorConfig.DirectoryService(hostnameFile, bind), advertise, advertisedPort);
    }

    /** The reference's {@code validate_host_port}: an IP literal with port, or any non-empty host and a u16. */
    static boolean isHostPort(final String addr) {
        if (SocketAddresses.parseLiteral(addr) != null) {
            return true;
        }
        final int colon = addr.lastIndexOf(':');
        if (colon <= 0) {
            return false;
        }
        final String port = addr.substring(colon + 1);
        return !port.isEmpty() && port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9')
                && Integer.parseInt(port) <= 0xFFFF;
    }
}
