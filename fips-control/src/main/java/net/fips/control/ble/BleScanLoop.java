package net.fips.control.ble;

import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import net.fips.control.config.BleConfig;

/**
 * The BlueZ side of one BLE transport instance (transports.md §5.5): at start, power the adapter on, read its
 * address, register the advertisement ({@code advertise}), clear BlueZ's device cache and start LE discovery with
 * the FIPS-UUID filter ({@code scan}); then, on the control thread, feed each announced FIPS device to the
 * {@link ProbeScheduler}. D-Bus threads only enqueue announcements; {@link #poll(long)} drains them with the
 * control clock, so the probe decisions are single-threaded and deterministic.
 */
public final class BleScanLoop implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(BleScanLoop.class.getName());
    /** Announcements held between polls; more are dropped (BlueZ repeats PropertiesChanged for live devices). */
    static final int MAX_QUEUED = 1024;

    private final BlueZ bluez;
    private final BleConfig config;
    private final ProbeScheduler scheduler;
    private final ProbeScheduler.Sink sink;
    private final Queue<BlueZ.Device> announced = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong queueDrops = new AtomicLong();
    private BlueZ.Adapter adapter;
    private long advertisementsSent;
    private boolean scanning;
    private volatile boolean stopPolling;
    private Thread poller;

    /**
     * @param bluez  the BlueZ client (owned: closed with this loop)
     * @param config the instance's settings
     * @param sink   the transport's probe entry point
     */
    public BleScanLoop(final BlueZ bluez, final BleConfig config, final ProbeScheduler.Sink sink) {
        this.bluez = Objects.requireNonNull(bluez, "bluez");
        this.config = Objects.requireNonNull(config, "config");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.scheduler = new ProbeScheduler(config.probeCooldownSecs() * 1_000_000_000L, sink);
    }

    /**
     * Finds and powers the adapter, advertises and starts scanning as configured.
     *
     * @return the adapter (its address is the one the L2CAP listener binds)
     * @throws BlueZException when BlueZ is unreachable or has no such adapter ("no adapter")
     */
    public BlueZ.Adapter start() throws BlueZException {
        final BlueZ.Adapter a = bluez.adapter(config.adapter()).orElseThrow(() -> new BlueZException(
                "no adapter " + (BleConfig.ANY_ADAPTER.equals(config.adapter()) ? "at all" : config.adapter())
                        + " in BlueZ"));
        if (!a.powered()) {
            bluez.powerOn(a);
        }
        adapter = a;
        if (config.advertise()) {
            bluez.advertise(a);
            advertisementsSent++;
            sink.advertised();
        }
        if (config.scan()) {
            for (final BlueZ.Device d : bluez.devices(a)) {
                try {
                    bluez.removeDevice(a, d);
                } catch (final BlueZException e) {
                    LOG.log(Level.DEBUG, "ble: cannot clear cached device {0}: {1}", d.path(), e.getMessage());
                }
            }
            bluez.startScan(a, this::enqueue);
            scanning = true;
        }
        return a;
    }

    private void enqueue(final BlueZ.Device d) {
        if (!d.isFips()) {
            return;
        }
        if (queued.incrementAndGet() > MAX_QUEUED) {
            queued.decrementAndGet();
            queueDrops.incrementAndGet();
            return;
        }
        announced.add(d);
    }

    /**
     * Drains the announcements and runs the scheduler's retries; call from the control thread once per tick
     * (and whenever it likes in between).
     */
    public void poll(final long nowNanos) {
        BlueZ.Device d;
        while ((d = announced.poll()) != null) {
            queued.decrementAndGet();
            scheduler.onDevice(d, nowNanos);
        }
        scheduler.tick(nowNanos);
    }

    /**
     * Polls once a second on a daemon thread of its own, with the control clock, until {@link #close()} (the
     * node's use; tests call {@link #poll(long)} themselves).
     */
    public synchronized void startPolling(final LongSupplier clock) {
        poller = Thread.ofPlatform().name("fips-ble-scan").daemon(true).start(() -> {
            while (!stopPolling) {
                poll(clock.getAsLong());
                LockSupport.parkNanos(1_000_000_000L);
            }
        });
    }

    /** @return the scheduler (counters) */
    public ProbeScheduler scheduler() {
        return scheduler;
    }

    /** @return advertisements registered ({@code advertisements_sent}) */
    public long advertisementsSent() {
        return advertisementsSent;
    }

    /** @return announcements dropped because the queue was full */
    public long queueDrops() {
        return queueDrops.get();
    }

    /** @return whether discovery is running */
    public boolean scanning() {
        return scanning;
    }

    @Override
    public void close() {
        stopPolling = true;
        final Thread p;
        synchronized (this) {
            p = poller;
        }
        if (p != null) {
            LockSupport.unpark(p);
            try {
                p.join(5_000);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (adapter != null) {
            try {
                if (scanning) {
                    bluez.stopScan(adapter);
                }
                if (config.advertise()) {
                    bluez.stopAdvertising(adapter);
                }
            } catch (final BlueZException e) {
                LOG.log(Level.DEBUG, "ble: stop on {0}: {1}", adapter.name(), e.getMessage());
            }
            scanning = false;
        }
        bluez.close();
    }
}
