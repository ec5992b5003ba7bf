package net.fips.control.ble;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The probe half of the BLE discovery loop (transports.md §5.5), pure and clock-injected: which scan results to
 * probe (L2CAP connect, key exchange, tie-break) and when. A FIPS scan result that is not pooled and was not probed
 * within the cooldown is probed at once; the probe time is recorded before the attempt, so failures cool down too.
 * Results that were not probed, or whose probe did not end pooled, wait in a pending list and are probed again
 * once their cooldown has passed (BlueZ does not announce an already-known device again). One owner thread.
 */
public final class ProbeScheduler {
    /** What the scheduler asks of the transport. */
    public interface Sink {
        /** @return whether a connection to {@code address} is pooled (or being set up) */
        boolean isConnected(String address);

        /** Starts a background probe of {@code address} ({@code random}: LE random address type). */
        void probe(String address, boolean random);

        /** One FIPS scan result was seen ({@code scan_results}). */
        default void scanResult() {
        }

        /** The advertisement was registered ({@code advertisements_sent}). */
        default void advertised() {
        }
    }

    /** At most this many addresses wait for a retry; more are dropped and counted. */
    public static final int MAX_PENDING = 256;

    private final long cooldownNanos;
    private final Sink sink;
    private final Map<String, Long> lastProbe = new LinkedHashMap<>();
    private final Map<String, Boolean> pending = new LinkedHashMap<>();
    private long scanResults;
    private long probes;
    private long pendingDropped;

    /**
     * @param cooldownNanos {@code probe_cooldown_secs} in nanoseconds
     * @param sink          the transport
     */
    public ProbeScheduler(final long cooldownNanos, final Sink sink) {
        if (cooldownNanos < 0) {
            throw new IllegalArgumentException("negative cooldown");
        }
        this.cooldownNanos = cooldownNanos;
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /**
     * A device announcement from BlueZ; only FIPS devices count.
     *
     * @param device the device as BlueZ describes it now
     * @param nowNanos the control clock
     */
    public void onDevice(final BlueZ.Device device, final long nowNanos) {
        if (!device.isFips() || device.address().isEmpty()) {
            return;
        }
        scanResults++;
        sink.scanResult();
        consider(device.address(), device.randomAddress(), nowNanos);
    }

    /** Retries pending addresses whose cooldown has passed; call once per control tick. */
    public void tick(final long nowNanos) {
        // an address probed longer ago than the cooldown is as good as never probed: forget it (bounds the map)
        lastProbe.entrySet().removeIf(e -> nowNanos - e.getValue() >= cooldownNanos
                && !pending.containsKey(e.getKey()));
        if (pending.isEmpty()) {
            return;
        }
        final Map<String, Boolean> due = new LinkedHashMap<>(pending);
        for (final Map.Entry<String, Boolean> e : due.entrySet()) {
            consider(e.getKey(), e.getValue(), nowNanos);
        }
    }

    private void consider(final String address, final boolean random, final long nowNanos) {
        if (sink.isConnected(address)) {
            pending.remove(address);
            return;
        }
        final Long last = lastProbe.get(address);
        if (last != null && nowNanos - last < cooldownNanos) {
            if (!pending.containsKey(address) && pending.size() >= MAX_PENDING) {
                pendingDropped++;
                return;
            }
            pending.put(address, random);
            return;
        }
        lastProbe.put(address, nowNanos);
        pending.put(address, random); // stays until a later look finds it connected
        probes++;
        sink.probe(address, random);
    }

    /** @return FIPS scan results seen ({@code scan_results}) */
    public long scanResults() {
        return scanResults;
    }

    /** @return probes started */
    public long probes() {
        return probes;
    }

    /** @return addresses whose last probe time is remembered */
    int rememberedCount() {
        return lastProbe.size();
    }

    /** @return addresses waiting for a retry */
    public int pendingCount() {
        return pending.size();
    }

    /** @return scan results dropped because the pending list was full */
    public long pendingDropped() {
        return pendingDropped;
    }
}
