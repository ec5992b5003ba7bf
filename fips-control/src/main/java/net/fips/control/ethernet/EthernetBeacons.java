package net.fips.control.ethernet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import net.fips.control.config.EthernetAddress;
import net.fips.control.config.EthernetConfig;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.ethernet.DiscoveredBeacon;

/**
 * The control-plane half of one Ethernet instance's discovery (transports.md §1.6, §4.4): when to send beacons and
 * what to do with the ones heard. Driven by the control thread's tick with an injected monotonic time; no thread,
 * no clock, no I/O of its own (the {@link Medium} does that).
 *
 * <ul>
 *   <li>{@code announce}: one beacon at the first tick, then one every {@code beacon_interval_secs} (at least 10);
 *       a failed send is retried at the next tick rather than a whole interval later.</li>
 *   <li>Every tick the medium's discoveries are drained. With {@code auto_connect} off they are discarded (the
 *       reference's rule); with it on, each beacon whose key is a valid x-only key and is not ours becomes a
 *       {@link DiscoveredPeer} for the node to dial. Invalid keys are counted.</li>
 *   <li>{@link #acceptConnections()} is the admission rule for handshakes from strangers: the config's
 *       {@code accept_connections}, default false.</li>
 * </ul>
 */
public final class EthernetBeacons {
    /** What the instance's transport offers this class. */
    public interface Medium {
        /** Sends one beacon; @return 0 or the positive errno */
        int sendBeacon();

        /** @return the beacons heard since the last call */
        List<DiscoveredBeacon> drainBeacons();
    }

    private final EthernetConfig config;
    private final Medium medium;
    private final byte[] selfKey;
    private final long intervalNanos;
    private long nextBeaconNanos = Long.MIN_VALUE;
    private long beaconsSent;
    private long beaconFailures;
    private long discovered;
    private long discarded;
    private long invalidKeys;
    private long selfHeard;

    /**
     * @param config  the instance's settings
     * @param medium  the transport
     * @param selfKey our 32-byte x-only key (beacons carrying it are ignored)
     */
    public EthernetBeacons(final EthernetConfig config, final Medium medium, final byte[] selfKey) {
        this.config = Objects.requireNonNull(config, "config");
        this.medium = Objects.requireNonNull(medium, "medium");
        this.selfKey = selfKey.clone();
        this.intervalNanos = TimeUnit.SECONDS.toNanos(config.effectiveBeaconIntervalSecs());
    }

    /**
     * One control tick: sends a beacon when one is due, then drains the discoveries.
     *
     * @param nowNanos monotonic time
     * @return peers to dial (empty unless {@code auto_connect})
     */
    public List<DiscoveredPeer> tick(final long nowNanos) {
        if (config.announce() && (nextBeaconNanos == Long.MIN_VALUE || nowNanos - nextBeaconNanos >= 0)) {
            if (medium.sendBeacon() == 0) {
                beaconsSent++;
                nextBeaconNanos = nowNanos + intervalNanos;
            } else {
                beaconFailures++;
                nextBeaconNanos = nowNanos;   // due again at the next tick
            }
        }
        final List<DiscoveredBeacon> heard = medium.drainBeacons();
        if (heard.isEmpty()) {
            return List.of();
        }
        if (!config.autoConnect()) {
            discarded += heard.size();
            return List.of();
        }
        final List<DiscoveredPeer> out = new ArrayList<>(heard.size());
        for (final DiscoveredBeacon b : heard) {
            final byte[] key = b.xOnlyKey();
            if (Arrays.equals(key, selfKey)) {
                selfHeard++;
                continue;
            }
            final PeerIdentity id;
            try {
                id = PeerIdentity.fromPublicKey(key);
            } catch (final IdentityFormatException e) {
                invalidKeys++;
                continue;
            }
            discovered++;
            out.add(new DiscoveredPeer(new EthernetAddress(config.interfaceName(), b.mac()), id));
        }
        return out;
    }

    /** @return whether a handshake msg1 from an address that is not a peer yet is admitted */
    public boolean acceptConnections() {
        return config.acceptConnections();
    }

    /** @return whether discovered peers are dialled */
    public boolean autoConnect() {
        return config.autoConnect();
    }

    /** @return the interval between beacons */
    public long intervalNanos() {
        return intervalNanos;
    }

    /** @return beacons sent */
    public long beaconsSent() {
        return beaconsSent;
    }

    /** @return beacon sends that failed (each retried at the next tick) */
    public long beaconFailures() {
        return beaconFailures;
    }

    /** @return beacons turned into peers to dial */
    public long discovered() {
        return discovered;
    }

    /** @return beacons drained and dropped because {@code auto_connect} is off */
    public long discarded() {
        return discarded;
    }

    /** @return beacons whose key is not a valid x-only secp256k1 key */
    public long invalidKeys() {
        return invalidKeys;
    }

    /** @return beacons carrying our own key (another interface of ours on the segment, or a replay) */
    public long selfHeard() {
        return selfHeard;
    }
}
