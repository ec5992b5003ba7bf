package net.fips.gateway;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import net.fips.control.config.ConfigException;
import net.fips.control.config.ConfigSources;
import net.fips.control.config.GatewayConfig;
import net.fips.control.config.LoadedConfig;
import net.fips.control.ctl.ControlSocketServer;

/**
 * {@code fips-gateway}: the LAN gateway beside the daemon (discovery-gateway.md §4.1). Reads the same
 * {@code fips.yaml} as the daemon (its {@code gateway:} block and {@code tun.name}), checks the host, installs the
 * nft table and the pool route, then serves DNS and its control socket and ticks the pool until SIGTERM/SIGINT,
 * when it removes what it installed. Every start-up failure exits 1 with one line saying why.
 */
@Command(name = "fips-gateway", mixinStandardHelpOptions = true, version = "fips-gateway 0.1.0",
        description = "LAN gateway into the FIPS mesh: a DNS proxy for .fips names, a virtual IPv6 pool and its"
                + " nftables NAT.")
public final class GatewayMain implements Callable<Integer> {
    /** The reference's hard-coded control socket. */
    static final Path DEFAULT_SOCKET = Path.of("/run/fips/gateway.sock");
    /** The reference's upstream probe: id 0x1234, RD, {@code test.fips} AAAA (discovery-gateway.md §4.1). */
    static final byte[] PROBE = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
        4, 't', 'e', 's', 't', 4, 'f', 'i', 'p', 's', 0, 0, 0x1C, 0, 1};

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Config file (default: the daemon's search path).")
    private Path config;

    @Option(names = {"-l", "--log-level"}, paramLabel = "LEVEL", defaultValue = "info",
            description = "trace, debug, info, warn or error (default: ${DEFAULT-VALUE}).")
    private String logLevel;

    @Option(names = "--control-socket", paramLabel = "PATH",
            description = "Control socket (default: /run/fips/gateway.sock, the reference's fixed path).")
    private Path controlSocket = DEFAULT_SOCKET;

    @Option(names = "--tick-interval", paramLabel = "SECONDS", defaultValue = "10",
            description = "Seconds between pool ticks (default: ${DEFAULT-VALUE}, as the reference).")
    private long tickSeconds;

    @Option(names = "--nft", paramLabel = "PATH", defaultValue = "nft", description = "The nft executable.")
    private String nftTool;

    @Option(names = "--ip", paramLabel = "PATH", defaultValue = "ip", description = "The ip executable.")
    private String ipTool;

    /**
     * @param args the command line
     */
    public static void main(final String[] args) {
        System.exit(new CommandLine(new GatewayMain()).execute(args));
    }

    @Override
    public Integer call() {
        final Log log;
        try {
            log = new Log(System.err, Log.parse(logLevel));
        } catch (final IllegalArgumentException e) {
            System.err.println("fips-gateway: " + e.getMessage());
            return 2;
        }
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            log.error("fips-gateway runs on Linux only");
            return 1;
        }
        if (tickSeconds < 1) {
            log.error("--tick-interval must be at least 1 second");
            return 2;
        }
        try {
            run(log);
            return 0;
        } catch (final GatewayException e) {
            log.error(e.getMessage());
            return 1;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private void run(final Log log) throws GatewayException, InterruptedException {
        final LoadedConfig loaded;
        try {
            loaded = ConfigSources.system().load(Optional.ofNullable(config));
        } catch (final ConfigException e) {
            throw new GatewayException(e.getMessage(), e);
        }
        final String source = config != null ? config.toString() : loaded.files().toString();
        final GatewayConfig gw = loaded.gateway().orElseThrow(() -> new GatewayException("no gateway: block in "
                + source + "; fips-gateway needs gateway.enabled: true, gateway.pool and gateway.lan_interface"));
        try {
            gw.validate(source);
        } catch (final ConfigException e) {
            throw new GatewayException(e.getMessage(), e);
        }
        final PoolCidr cidr;
        try {
            cidr = PoolCidr.parse(gw.pool());
        } catch (final IllegalArgumentException e) {
            throw new GatewayException("invalid configuration in " + source + ":\n  gateway.pool: " + e.getMessage(),
                    e);
        }
        final String tun = loaded.config().tun().name();
        final NetSetup net = new NetSetup(Path.of("/"), ipTool);
        net.requireNetAdmin();
        net.requireForwarding();
        final String ndp = net.proxyNdpWarning();
        if (ndp != null) {
            log.warn(ndp);
        }
        net.requireInterface(tun, "the daemon's TUN, tun.name");
        net.requireInterface(gw.lanInterface(), "gateway.lan_interface");
        probeUpstream(gw.dnsUpstreamAddress(), log);

        final Gateway gateway = new Gateway(gw, tun, new VirtualPool(cidr, gw.dnsTtl(), gw.poolGracePeriod()),
                new Nft.Tool(nftTool), net, new Conntrack(Path.of("/proc/net/nf_conntrack")),
                () -> System.nanoTime() / 1_000_000, log);
        final boolean routeAdded;
        try {
            gateway.installTable();
            routeAdded = net.addPoolRoute(cidr);
        } catch (final IOException e) {
            gateway.teardown();
            throw new GatewayException("cannot set up NAT and routes: " + e.getMessage(), e);
        }
        final DnsProxy dns;
        try {
            dns = DnsProxy.start(gw.dnsListenAddress(), gw.dnsUpstreamAddress(), gw.dnsTtl(), gateway::allocate,
                    Duration.ofSeconds(5), () -> System.currentTimeMillis() / 1000, log);
        } catch (final GatewayException e) {
            stopNetwork(gateway, net, cidr, routeAdded, log);
            throw e;
        }
        final GatewayControl control = new GatewayControl(gateway, DnsProxy.text(dns.localAddress()));
        ControlSocketServer ctl = null;
        try {
            ctl = ControlSocketServer.serve(controlSocket, control::handle, ControlSocketServer.Options.DEFAULTS);
        } catch (final IOException e) {
            // As the reference: the gateway works without its control socket.
            log.warn("control socket " + controlSocket + ": " + e.getMessage() + "; running without it");
        }
        final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("fips-gateway-tick").unstarted(r));
        ticks.scheduleAtFixedRate(() -> {
            try {
                gateway.tick();
            } catch (final RuntimeException e) {
                log.error("pool tick: " + e);
            }
        }, 0, tickSeconds, TimeUnit.SECONDS);
        final CountDownLatch stopped = new CountDownLatch(1);
        final ControlSocketServer ctlFinal = ctl;
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("fips-gateway-stop").unstarted(() -> {
            log.info("stopping");
            ticks.shutdownNow();
            dns.close();
            if (ctlFinal != null) {
                ctlFinal.close();
            }
            final VirtualPool.Status s = gateway.snapshot().status();
            log.info("final pool: " + s.allocated() + " allocated, " + s.active() + " active, " + s.draining()
                    + " draining, " + s.free() + " free of " + s.total());
            stopNetwork(gateway, net, cidr, routeAdded, log);
            log.info("stopped");
            stopped.countDown();
        }));
        log.info("fips-gateway running: DNS on " + DnsProxy.text(dns.localAddress()) + " (upstream "
                + gw.dnsUpstream() + "), pool " + gw.pool() + " (" + cidr.size() + " addresses), LAN "
                + gw.lanInterface() + ", TUN " + tun + ", " + gw.portForwards().size() + " port forward(s), control "
                + (ctl != null ? controlSocket : "none"));
        stopped.await();
    }

    private static void stopNetwork(final Gateway gateway, final NetSetup net, final PoolCidr cidr,
            final boolean routeAdded, final Log log) {
        gateway.teardown();
        if (routeAdded) {
            try {
                net.deletePoolRoute(cidr);
            } catch (final IOException e) {
                log.warn("pool route: " + e.getMessage());
            }
        }
    }

    /** The reference's start-up probe: up to 5 tries, 1 s wait each, 1 s apart; any reply counts. */
    static void probeUpstream(final InetSocketAddress upstream, final Log log) throws GatewayException {
        final StandardProtocolFamily family = upstream.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        String last = "no reply";
        for (int attempt = 1; attempt <= 5; attempt++) {
            try (DatagramChannel ch = DatagramChannel.open(family)) {
                ch.connect(upstream);
                ch.write(ByteBuffer.wrap(PROBE));
                ch.socket().setSoTimeout(1000);
                final DatagramPacket p = new DatagramPacket(new byte[512], 512);
                ch.socket().receive(p);
                log.debug("upstream " + DnsProxy.text(upstream) + " answered the probe");
                return;
            } catch (final SocketTimeoutException e) {
                last = "no reply within 1 s";
            } catch (final IOException e) {
                last = e.getMessage();
                try {
                    Thread.sleep(1000); // the reference's pause between tries
                } catch (final InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new GatewayException("interrupted", ie);
                }
            }
            log.debug("upstream probe " + attempt + "/5: " + last);
        }
        throw new GatewayException("gateway.dns.upstream " + DnsProxy.text(upstream) + " does not answer DNS ("
                + last + " after 5 tries): start the daemon (fips.service) with dns.enabled: true, and make"
                + " gateway.dns.upstream match its dns.bind_addr and dns.port");
    }
}
