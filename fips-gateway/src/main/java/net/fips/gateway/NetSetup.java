package net.fips.gateway;

import java.io.IOException;
import java.net.Inet6Address;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Host network state of the gateway (discovery-gateway.md §4.5), through the {@code ip} tool as the reference
 * does it: the checks it makes at start (IPv6 forwarding on, both interfaces present), the {@code local <pool> dev
 * lo} route, and one proxy-NDP entry per mapping on the LAN interface. Like the reference it sets no sysctl; it
 * says which one is missing. Paths are relative to a root so tests can point it at a fake {@code /proc}.
 */
public class NetSetup {
    /** CAP_NET_ADMIN's bit in the capability sets of {@code /proc/self/status}. */
    static final int CAP_NET_ADMIN = 12;

    private final Path root;
    private final String ip;

    /**
     * @param root the file system root ({@code /} on a host)
     * @param ip   the ip executable
     */
    public NetSetup(final Path root, final String ip) {
        this.root = root;
        this.ip = ip;
    }

    /**
     * @throws GatewayException naming the missing capability when this process lacks CAP_NET_ADMIN
     */
    public void requireNetAdmin() throws GatewayException {
        final List<String> lines;
        try {
            lines = Files.readAllLines(root.resolve("proc/self/status"));
        } catch (final IOException e) {
            return; // not Linux /proc: the first ip or nft call says what is wrong
        }
        for (final String l : lines) {
            if (l.startsWith("CapEff:")) {
                final long caps = Long.parseUnsignedLong(l.substring(7).strip(), 16);
                if ((caps >>> CAP_NET_ADMIN & 1) == 0) {
                    throw new GatewayException("fips-gateway needs CAP_NET_ADMIN (nft rules, routes, proxy NDP):"
                            + " run it as root, or through its systemd unit (fips-gateway.service)");
                }
                return;
            }
        }
    }

    /**
     * @throws GatewayException when {@code net.ipv6.conf.all.forwarding} is not 1, naming the sysctl to set
     */
    public void requireForwarding() throws GatewayException {
        final String v = read("proc/sys/net/ipv6/conf/all/forwarding");
        if (!"1".equals(v)) {
            throw new GatewayException("IPv6 forwarding is off (net.ipv6.conf.all.forwarding = " + v
                    + "); the gateway routes LAN traffic into fips0: run sysctl -w net.ipv6.conf.all.forwarding=1"
                    + " (and make it permanent in /etc/sysctl.d/)");
        }
    }

    /** @return a warning when {@code net.ipv6.conf.all.proxy_ndp} is not 1, else null */
    public String proxyNdpWarning() {
        final String v = read("proc/sys/net/ipv6/conf/all/proxy_ndp");
        return "1".equals(v) ? null : "net.ipv6.conf.all.proxy_ndp is " + v + ": LAN hosts that reach the pool"
                + " on-link (no route via this gateway) get no neighbour answers; sysctl -w"
                + " net.ipv6.conf.all.proxy_ndp=1";
    }

    /**
     * @param name an interface name
     * @throws GatewayException when it does not exist
     */
    public void requireInterface(final String name, final String what) throws GatewayException {
        if (name.isEmpty() || name.contains("/") || !Files.exists(root.resolve("sys/class/net").resolve(name))) {
            throw new GatewayException("interface " + name + " (" + what + ") does not exist");
        }
    }

    /**
     * Adds {@code local <pool> dev lo}.
     *
     * @param pool the CIDR
     * @return whether this call added it (false: it was there already)
     * @throws IOException when ip fails otherwise
     */
    public boolean addPoolRoute(final PoolCidr pool) throws IOException {
        try {
            Exec.run(List.of(ip, "-6", "route", "add", "local", pool.text(), "dev", "lo"), null);
            return true;
        } catch (final IOException e) {
            if (e.getMessage().contains("File exists")) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Deletes the pool route.
     *
     * @param pool the CIDR
     * @throws IOException when ip fails
     */
    public void deletePoolRoute(final PoolCidr pool) throws IOException {
        Exec.run(List.of(ip, "-6", "route", "del", "local", pool.text(), "dev", "lo"), null);
    }

    /**
     * Adds a proxy-NDP entry; an existing one is fine.
     *
     * @param vip the address
     * @param lan the LAN interface
     * @throws IOException when ip fails otherwise
     */
    public void addProxyNdp(final Inet6Address vip, final String lan) throws IOException {
        try {
            Exec.run(List.of(ip, "-6", "neigh", "add", "proxy", Addresses.text(vip), "dev", lan), null);
        } catch (final IOException e) {
            if (!e.getMessage().contains("File exists")) {
                throw e;
            }
        }
    }

    /**
     * Deletes a proxy-NDP entry; a missing one is fine.
     *
     * @param vip the address
     * @param lan the LAN interface
     * @throws IOException when ip fails otherwise
     */
    public void deleteProxyNdp(final Inet6Address vip, final String lan) throws IOException {
        try {
            Exec.run(List.of(ip, "-6", "neigh", "del", "proxy", Addresses.text(vip), "dev", lan), null);
        } catch (final IOException e) {
            final String m = e.getMessage().toLowerCase(Locale.ROOT);
            if (!m.contains("no such file") && !m.contains("not found")) {
                throw e;
            }
        }
    }

    private String read(final String rel) {
        try {
            return Files.readString(root.resolve(rel)).strip();
        } catch (final IOException e) {
            return "unreadable (" + e.getMessage() + ")";
        }
    }
}
