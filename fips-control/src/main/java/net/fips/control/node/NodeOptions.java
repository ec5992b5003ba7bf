package net.fips.control.node;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import net.fips.control.lan.LanDiscovery;
import net.fips.control.link.LinkConfig;
import net.fips.control.nostr.NostrRuntime;
import net.fips.control.nostr.TraversalStarter;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.ble.L2capProbe;
import net.fips.dataplane.tun.TunConfig;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.tun.TunException;

/**
 * What a {@link Node} takes besides its configuration: hooks and overrides for embedders and tests. The defaults
 * are what the daemon runs with. Fluent and mutable; a node copies what it needs at start.
 */
public final class NodeOptions {
    private LocalDelivery localDelivery = (linkId, segment, offset, length) -> { };
    private boolean localDeliverySet;
    private Supplier<Ipv6Sink> ipv6Sink;
    /** Null: from {@code node.dataplane.threading} (and its environment override). */
    private ThreadingMode threadingMode;
    private LongSupplier nanoClock = System::nanoTime;
    private LongSupplier nostrWallClock = System::currentTimeMillis;
    private Random random;
    private String version = "unknown";
    private Path aclDirectory = Path.of("/etc/fips");
    private Path keyDirectory;
    private UnaryOperator<LinkConfig> linkConfigTuner = UnaryOperator.identity();
    private TunOpener tunOpener = TunDevice::open;

    /** @return the daemon's defaults */
    public static NodeOptions defaults() {
        return new NodeOptions();
    }

    /** @param hook receives SessionDatagrams that arrive on any link (on a data-plane thread; must not block) */
    public NodeOptions localDelivery(final LocalDelivery hook) {
        this.localDelivery = Objects.requireNonNull(hook, "hook");
        this.localDeliverySet = true;
        return this;
    }

    /**
     * @param mode overrides {@code node.dataplane.threading} (by default the configuration decides):
     *             {@link ThreadingMode#DEDICATED} (a thread per data-plane agent), {@link ThreadingMode#COMPACT}
     *             (one data-plane thread) or {@link ThreadingMode#SHARED} (the control thread also drives the data
     *             plane, polling every millisecond when idle; deterministic single-thread runs for tests)
     */
    public NodeOptions threadingMode(final ThreadingMode mode) {
        this.threadingMode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /** @param clock monotonic nanoseconds shared by the control loop and the data plane (default nanoTime) */
    public NodeOptions nanoClock(final LongSupplier clock) {
        this.nanoClock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * @param clock the wall clock of Nostr discovery, Unix ms, read on every use (advert times, signal freshness,
     *              failure cooldowns, the open-discovery startup sweep; default {@link System#currentTimeMillis})
     */
    public NodeOptions nostrWallClock(final LongSupplier clock) {
        this.nostrWallClock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * @param random all link-layer randomness, ephemeral keys included; a seeded generator is for tests only.
     *               Default: a new {@link SecureRandom}.
     */
    public NodeOptions random(final Random random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /** @param text version string for {@code show_status} */
    public NodeOptions version(final String text) {
        this.version = Objects.requireNonNull(text, "text");
        return this;
    }

    /** @param dir where {@code peers.allow}, {@code peers.deny} and {@code hosts} are read (default /etc/fips) */
    public NodeOptions aclDirectory(final Path dir) {
        this.aclDirectory = Objects.requireNonNull(dir, "dir");
        return this;
    }

    /**
     * @param dir where {@code fips.key}/{@code fips.pub} live, instead of the directory of the last config file
     *            loaded (or /etc/fips)
     */
    public NodeOptions keyDirectory(final Path dir) {
        this.keyDirectory = Objects.requireNonNull(dir, "dir");
        return this;
    }

    /**
     * @param tuner adjusts the link settings derived from {@code node.*}, e.g. the reference's fixed rekey
     *              timings, which no config key reaches (tests that need several rekeys in seconds)
     */
    public NodeOptions linkConfigTuner(final UnaryOperator<LinkConfig> tuner) {
        this.linkConfigTuner = Objects.requireNonNull(tuner, "tuner");
        return this;
    }

    /** Makes the node's TUN device from its settings (the data plane's {@link TunConfig}). */
    @FunctionalInterface
    public interface TunOpener {
        /**
         * @param config name, MTU, the node's address and the offload request, from {@code tun.*}
         * @return the device, ready for the data plane (which closes it)
         * @throws TunException naming what failed; the node does not start
         */
        TunDevice open(TunConfig config) throws TunException;
    }

    /**
     * @param opener makes the TUN device when {@code tun.enabled} is true, instead of {@link TunDevice#open} (the
     *               daemon's ahead-of-time training hands the node a {@code TunStandIn}'s device)
     */
    public NodeOptions tunOpener(final TunOpener opener) {
        this.tunOpener = Objects.requireNonNull(opener, "opener");
        return this;
    }

    TunOpener tunOpener() {
        return tunOpener;
    }

    LocalDelivery localDelivery() {
        return localDelivery;
    }

    /**
     * @param sink one IPv6 sink per data-plane worker for the packets sessions deliver when the node has no TUN
     *             device (tests); with a TUN device the device is the sink
     */
    public NodeOptions ipv6Sink(final Supplier<Ipv6Sink> sink) {
        this.ipv6Sink = Objects.requireNonNull(sink, "sink");
        return this;
    }

    Supplier<Ipv6Sink> ipv6Sink() {
        return ipv6Sink;
    }

    /** A test hook that takes every SessionDatagram for us instead of the session layer. */
    boolean localDeliverySet() {
        return localDeliverySet;
    }

    /** @return the mode set here, or null when the configuration decides */
    ThreadingMode threadingMode() {
        return threadingMode;
    }

    LongSupplier nanoClock() {
        return nanoClock;
    }

    LongSupplier nostrWallClock() {
        return nostrWallClock;
    }

    Random randomOrSecure() {
        return random != null ? random : new SecureRandom();
    }

    String version() {
        return version;
    }

    Path aclDirectory() {
        return aclDirectory;
    }

    Path keyDirectory() {
        return keyDirectory;
    }

    UnaryOperator<LinkConfig> linkConfigTuner() {
        return linkConfigTuner;
    }

    private Supplier<L2capProbe> l2capProbe = L2capProbe::run;
    private Consumer<String> bleOutcomes = line -> { };

    /** @param probe the kernel L2CAP probe the BLE start-time check uses (tests replace it) */
    public NodeOptions l2capProbe(final Supplier<L2capProbe> probe) {
        this.l2capProbe = Objects.requireNonNull(probe, "probe");
        return this;
    }

    Supplier<L2capProbe> l2capProbe() {
        return l2capProbe;
    }

    /** @param sink receives one line per {@code transports.ble} instance: its name and what became of it */
    public NodeOptions bleOutcomes(final Consumer<String> sink) {
        this.bleOutcomes = Objects.requireNonNull(sink, "sink");
        return this;
    }

    void bleOutcome(final String line) {
        bleOutcomes.accept(line);
    }

    private boolean nostrLoopbackEndpoints;
    private Function<NostrRuntime, TraversalStarter> traversalStarter;

    /**
     * @param allow keep loopback endpoints in published and read Nostr adverts (the reference's public filter drops
     *              them; tests that run several nodes and a relay on one host need them). Default false.
     */
    public NodeOptions nostrLoopbackEndpoints(final boolean allow) {
        this.nostrLoopbackEndpoints = allow;
        return this;
    }

    boolean nostrLoopbackEndpoints() {
        return nostrLoopbackEndpoints;
    }

    /**
     * @param factory replaces the node's NAT traversal engine (for tests): builds what handles dials to {@code nat}
     *                endpoints from the node's Nostr runtime (its {@link net.fips.control.nostr.SignalChannel});
     *                default: the node's own engine (STUN, offer/answer, punch, adoption), which also answers offers
     */
    public NodeOptions traversalStarter(final Function<NostrRuntime, TraversalStarter> factory) {
        this.traversalStarter = Objects.requireNonNull(factory, "factory");
        return this;
    }

    Optional<Function<NostrRuntime, TraversalStarter>> traversalStarter() {
        return Optional.ofNullable(traversalStarter);
    }

    private LanAddresses lanAddresses = LanDiscovery::interfaceAddresses;

    /** Where LAN discovery runs mDNS: the interface addresses to use, listed when it starts. */
    @FunctionalInterface
    public interface LanAddresses {
        /**
         * @return the addresses
         * @throws IOException when they cannot be listed
         */
        List<InetAddress> list() throws IOException;
    }

    /**
     * @param addresses the interface addresses LAN discovery runs on (default: every up, multicast-capable IPv4
     *                  interface address and loopback, {@link LanDiscovery#interfaceAddresses()}); tests pick
     *                  loopback only
     */
    public NodeOptions lanAddresses(final LanAddresses addresses) {
        this.lanAddresses = Objects.requireNonNull(addresses, "addresses");
        return this;
    }

    LanAddresses lanAddresses() {
        return lanAddresses;
    }
}
