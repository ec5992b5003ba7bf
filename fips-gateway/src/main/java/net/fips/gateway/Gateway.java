package net.fips.gateway;

import java.io.IOException;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

import net.fips.control.config.GatewayConfig;

/**
 * The gateway's state: the pool, the nft table that mirrors it, the proxy-NDP entries, and the traffic each
 * mapping saw. Every change goes through one lock; the DNS proxy allocates through {@link #allocate}, the tick
 * thread calls {@link #tick()}, the control socket reads {@link #snapshot()}. Time comes from an injected clock.
 */
public final class Gateway {
    /**
     * What the control socket shows (discovery-gateway.md §4.6).
     *
     * @param status      counts by state
     * @param mappings    every mapping
     * @param natMappings mappings whose NAT rules are installed
     * @param uptimeSecs  seconds since start
     */
    public record Snapshot(VirtualPool.Status status, List<VirtualPool.Mapping> mappings, int natMappings,
            long uptimeSecs) {
    }

    private final GatewayConfig config;
    private final String tun;
    private final VirtualPool pool;
    private final Nft nft;
    private final NetSetup net;
    private final Conntrack conntrack;
    private final LongSupplier clockMs;
    private final Log log;
    private final long startMs;
    private final Map<Inet6Address, Long> baselines = new HashMap<>();
    private List<NftRuleset.Nat> installed = List.of();
    private boolean dirty;
    private boolean countersFailing;

    /**
     * @param config    the gateway block
     * @param tun       the daemon's TUN interface name
     * @param pool      the pool
     * @param nft       the nft table
     * @param net       routes and proxy NDP
     * @param conntrack the conntrack reader
     * @param clockMs   a monotonic clock in ms
     * @param log       the log
     */
    Gateway(final GatewayConfig config, final String tun, final VirtualPool pool, final Nft nft, final NetSetup net,
            final Conntrack conntrack, final LongSupplier clockMs, final Log log) {
        this.config = Objects.requireNonNull(config, "config");
        this.tun = tun;
        this.pool = pool;
        this.nft = nft;
        this.net = net;
        this.conntrack = conntrack;
        this.clockMs = clockMs;
        this.log = log;
        this.startMs = clockMs.getAsLong();
    }

    /** @return the config */
    GatewayConfig config() {
        return config;
    }

    /**
     * Installs the table with the port forwards and no mapping.
     *
     * @throws IOException when nft fails
     */
    synchronized void installTable() throws IOException {
        rebuild();
    }

    /**
     * The DNS proxy's allocation: maps the mesh address and, when the mapping is new, installs its NAT rules and
     * proxy-NDP entry before the answer goes out, so the client's first packet already finds them.
     *
     * @param meshAddr the resolved address
     * @param name     the name asked
     * @return the pool address
     * @throws VirtualPool.ExhaustedException when the pool is full
     * @throws IOException                    when the NAT rules could not be installed (retried each tick)
     */
    synchronized Inet6Address allocate(final Inet6Address meshAddr, final String name)
            throws VirtualPool.ExhaustedException, IOException {
        final VirtualPool.Allocation a = pool.allocate(meshAddr, name, clockMs.getAsLong());
        if (a.created() || dirty) {
            log.info("mapping " + Addresses.text(a.virtualIp()) + " -> " + Addresses.text(meshAddr) + " (" + name
                    + ")");
            rebuild();
            try {
                net.addProxyNdp(a.virtualIp(), config.lanInterface());
            } catch (final IOException e) {
                log.warn("proxy NDP for " + Addresses.text(a.virtualIp()) + ": " + e.getMessage());
            }
        }
        return a.virtualIp();
    }

    /** One pool tick: reads traffic, moves states, removes what was reclaimed. */
    synchronized void tick() {
        final long now = clockMs.getAsLong();
        Map<String, Long> counters;
        try {
            counters = nft.packetCounters();
            if (countersFailing) {
                log.info("nft counters readable again");
                countersFailing = false;
            }
        } catch (final IOException e) {
            if (!countersFailing) {
                log.warn("cannot read the traffic counters (" + e.getMessage() + "); only conntrack keeps mappings");
                countersFailing = true;
            }
            counters = Map.of();
        }
        final Map<String, Integer> sessions = conntrack.countByOriginalDestination();
        final Map<String, Long> seen = counters;
        final List<VirtualPool.Mapping> freed = pool.tick(now, vip -> {
            final Long packets = seen.get(Addresses.text(vip));
            final long before = baselines.getOrDefault(vip, 0L);
            final boolean traffic = packets != null && packets > before;
            if (packets != null) {
                baselines.put(vip, packets);
            }
            return new VirtualPool.Activity(traffic, Conntrack.sessions(sessions, vip));
        });
        for (final VirtualPool.Mapping m : freed) {
            log.info("reclaimed " + Addresses.text(m.virtualIp()) + " (" + m.dnsName() + ")");
            baselines.remove(m.virtualIp());
            try {
                net.deleteProxyNdp(m.virtualIp(), config.lanInterface());
            } catch (final IOException e) {
                log.warn("proxy NDP removal for " + Addresses.text(m.virtualIp()) + ": " + e.getMessage());
            }
        }
        if (!freed.isEmpty() || dirty) {
            try {
                rebuild();
            } catch (final IOException e) {
                log.error("nft: " + e.getMessage());
            }
        }
    }

    /** @return what the control socket shows */
    synchronized Snapshot snapshot() {
        final long now = clockMs.getAsLong();
        return new Snapshot(pool.status(), pool.mappings(now), installed.size(), (now - startMs) / 1000);
    }

    /** @return the pool */
    VirtualPool pool() {
        return pool;
    }

    /**
     * Removes the proxy-NDP entries and the table (at stop).
     */
    synchronized void teardown() {
        for (final NftRuleset.Nat n : installed) {
            try {
                net.deleteProxyNdp(n.virtualIp(), config.lanInterface());
            } catch (final IOException e) {
                log.warn("proxy NDP removal for " + Addresses.text(n.virtualIp()) + ": " + e.getMessage());
            }
        }
        try {
            nft.delete();
        } catch (final IOException e) {
            log.error("nft: cannot delete table " + NftRuleset.TABLE + ": " + e.getMessage());
        }
        installed = List.of();
    }

    private void rebuild() throws IOException {
        final List<NftRuleset.Nat> nats = new ArrayList<>();
        for (final VirtualPool.Mapping m : pool.mappings(clockMs.getAsLong())) {
            nats.add(new NftRuleset.Nat(m.virtualIp(), m.meshAddr()));
        }
        try {
            nft.replace(NftRuleset.table(tun, config.lanInterface(), nats, config.portForwards()));
        } catch (final IOException e) {
            dirty = true;
            throw e;
        }
        dirty = false;
        installed = List.copyOf(nats);
        // A new table starts its counters at zero.
        baselines.replaceAll((k, v) -> 0L);
    }
}
