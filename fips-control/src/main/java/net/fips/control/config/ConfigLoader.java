package net.fips.control.config;

import java.io.IOException;
import java.io.InputStream;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalInt;
import java.util.TreeSet;

import net.fips.control.identity.Hostnames;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.tor.TorAddress;
import net.fips.dataplane.tor.TorAddressException;

/**
 * Parses {@code fips.yaml} text strictly into a {@link FipsConfig}.
 *
 * <p>Stricter than the reference on purpose: a key that neither reference line (v0.4.1, master) knows is an error
 * naming its full path with a did-you-mean hint (the reference silently ignores unknown keys outside a few
 * sections, so a typo like {@code bind_adress} would quietly fall back to a default). Wrong types and
 * out-of-range values are errors naming the path, what was expected and what was found. A key the reference
 * knows but this node does not implement ({@link ReferenceKeys}) is checked the same way and loads with one
 * warning naming it. Both spellings of the keys master renamed are accepted ({@code node.lookup.*} and
 * {@code node.rendezvous.*} for {@code node.discovery.*}, ethernet {@code listen} for {@code discovery},
 * {@code udp/<instance>} peer transports). All problems are collected and thrown together as one
 * {@link ConfigException}.
 *
 * <p>The reference's cross-field checks (operator.md §1.1) are applied as well.
 */
public final class ConfigLoader {
    /** Transport names a peer address may use. */
    static final Set<String> TRANSPORT_NAMES = Set.of("udp", "tcp", "ethernet", "tor", "nym", "ble");
    static final String UDP_SCHEMA = "bind_addr mtu recv_buf_size send_buf_size advertise_on_nostr public"
            + " external_addr outbound_only accept_connections";
    private static final String DEFAULT_SOURCE = "<embedded default-fips.yaml>";

    private final HostEnvironment host;

    /** @param host where default paths are resolved and environment variables come from */
    public ConfigLoader(final HostEnvironment host) {
        this.host = Objects.requireNonNull(host, "host");
    }

    /**
     * Parses one YAML text.
     *
     * @param yaml   the text
     * @param source named in errors (usually the file path)
     * @return the configuration with its warnings; {@code files} is empty
     * @throws ConfigException listing every problem
     */
    public LoadedConfig load(final String yaml, final String source) throws ConfigException {
        return fromTree(parseTree(yaml, source), source, List.of());
    }

    /**
     * @return the bundled {@value FipsConfig#DEFAULT_RESOURCE} for this host
     * @throws ConfigException if the resource is missing or broken (a build error)
     */
    public LoadedConfig loadDefault() throws ConfigException {
        return load(defaultText(), DEFAULT_SOURCE);
    }

    /** @return the bundled default's text */
    static String defaultText() throws ConfigException {
        try (InputStream in = FipsConfig.class.getResourceAsStream(FipsConfig.DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new ConfigException(DEFAULT_SOURCE, "resource is missing from the build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (final IOException e) {
            throw new ConfigException(DEFAULT_SOURCE, "cannot read resource: " + e.getMessage());
        }
    }

    /** Parses text into a plain tree (no schema check). */
    Map<String, Object> parseTree(final String yaml, final String source) throws ConfigException {
        Objects.requireNonNull(yaml, "yaml");
        return YamlTrees.parse(yaml, source);
    }

    /** Maps a (possibly merged) tree. */
    LoadedConfig fromTree(final Map<String, Object> tree, final String source, final List<Path> files)
            throws ConfigException {
        final ConfigReader.Problems problems = new ConfigReader.Problems();
        final ConfigReader top = ConfigReader.of(problems, "", tree);

        final NodeSection.Result node = NodeSection.read(top.child("node"), host);
        final TunConfig tun = tun(top.child("tun"));
        final DnsConfig dns = dns(top.child("dns"));
        final List<UdpConfig> udp = new ArrayList<>();
        final List<BleConfig> ble = new ArrayList<>();
        final List<TcpConfig> tcp = new ArrayList<>();
        final List<EthernetConfig> ethernet = new ArrayList<>();
        final List<TorConfig> tor = new ArrayList<>();
        final List<NymConfig> nym = new ArrayList<>();
        final boolean otherAdvertises = transports(top.child("transports"), udp, ethernet, tcp, tor, nym, ble);
        final Set<String> udpNames = new TreeSet<>();
        udp.forEach(u -> u.name().ifPresent(udpNames::add));
        final List<PeerConfig> peers = peers(top, problems, Boolean.TRUE.equals(node.nostr().get("enabled")),
                udpNames);
        final GatewayConfig gateway = gateway(top.child("gateway"));
        top.finish();

        crossChecks(problems, node, udp, otherAdvertises, peers);
        if (!problems.errors.isEmpty()) {
            throw new ConfigException(source, problems.errors);
        }
        final List<String> warnings = new ArrayList<>(problems.warnings);
        final EnvSettings env = EnvSettings.from(host, warnings);
        return new LoadedConfig(new FipsConfig(node.node(), tun, dns, udp, ethernet, peers, tcp, tor, nym, ble,
                NostrConfig.from(node.nostr()), node.lan()), files,
                warnings, env, Optional.ofNullable(gateway));
    }

    private static TunConfig tun(final ConfigReader r) {
        final TunConfig d = TunConfig.DEFAULTS;
        final TunConfig tun = new TunConfig(r.bool("enabled", d.enabled()), r.string("name", d.name()),
                (int) r.integer("mtu", d.mtu(), 1280, 0xFFFF), tunOffload(r, d.offload()));
        r.finish();
        return tun;
    }

    /** {@code tun.offload}: auto or off (YAML 1.1 reads a bare {@code off} as false, so booleans are taken too). */
    private static TunConfig.Offload tunOffload(final ConfigReader r, final TunConfig.Offload def) {
        final Object v = r.raw("offload");
        if (v == null) {
            return def;
        }
        if (v instanceof Boolean b) {
            return b ? TunConfig.Offload.AUTO : TunConfig.Offload.OFF;
        }
        if ("auto".equals(v)) {
            return TunConfig.Offload.AUTO;
        }
        if ("off".equals(v)) {
            return TunConfig.Offload.OFF;
        }
        r.error("offload", "expected auto or off, got " + v);
        return def;
    }

    private static DnsConfig dns(final ConfigReader r) {
        final DnsConfig d = DnsConfig.DEFAULTS;
        final DnsConfig dns = new DnsConfig(r.bool("enabled", d.enabled()), r.string("bind_addr", d.bindAddr()),
                r.u16("port", d.port()), r.integer("ttl", d.ttl(), 0, 0xFFFF_FFFFL));
        r.finish();
        return dns;
    }

    /** @return true when a non-UDP transport has advertise_on_nostr set */
    private static boolean transports(final ConfigReader t, final List<UdpConfig> udp,
            final List<EthernetConfig> ethernet, final List<TcpConfig> tcp, final List<TorConfig> tor,
            final List<NymConfig> nym, final List<BleConfig> ble) {
        final Set<String> udpKeys = Set.of(UDP_SCHEMA.split(" "));
        if (t.has("udp")) {
            for (final Map.Entry<String, Object> inst : Skim.instances(t, "udp", udpKeys)) {
                final String path = inst.getKey() == null ? "udp" : "udp." + inst.getKey();
                udp.add(udp(ConfigReader.of(t.problems(), t.pathOf(path), t.schemaPathOf("udp"), inst.getValue()),
                        Optional.ofNullable(inst.getKey())));
            }
        } else if (t.presentKeys().contains("udp")) {
            // "udp:" with nothing after it: UDP with every default, like "udp: {}".
            udp.add(UdpConfig.DEFAULTS);
        }
        if (t.presentKeys().contains("ble")) {
            for (final Map.Entry<String, Object> inst : Skim.instances(t, "ble", Skim.keys(Skim.BLE))) {
                final String path = inst.getKey() == null ? "ble" : "ble." + inst.getKey();
                ble.add(ble(ConfigReader.of(t.problems(), t.pathOf(path), t.schemaPathOf("ble"), inst.getValue()),
                        Optional.ofNullable(inst.getKey())));
            }
        } else {
            t.raw("ble");
        }
        boolean advertises = false;
        if (t.presentKeys().contains("ethernet")) {
            for (final Map.Entry<String, Object> inst : Skim.instances(t, "ethernet", Skim.keys(Skim.ETHERNET))) {
                final String path = inst.getKey() == null ? "ethernet" : "ethernet." + inst.getKey();
                final EthernetConfig e = ethernet(ConfigReader.of(t.problems(), t.pathOf(path),
                        t.schemaPathOf("ethernet"), inst.getValue()), Optional.ofNullable(inst.getKey()));
                if (!e.interfaceName().isEmpty()
                        && ethernet.stream().anyMatch(o -> o.interfaceName().equals(e.interfaceName()))) {
                    t.problems().error(t.pathOf(path) + ".interface", "interface " + e.interfaceName()
                            + " already has an Ethernet instance (one instance per interface)");
                }
                ethernet.add(e);
            }
        } else {
            t.raw("ethernet");
        }
        if (t.presentKeys().contains("tor")) {
            for (final Map.Entry<String, Object> inst : Skim.instances(t, "tor", TorSection.KEYS)) {
                final String path = inst.getKey() == null ? "tor" : "tor." + inst.getKey();
                final TorConfig c = TorSection.read(ConfigReader.of(t.problems(), t.pathOf(path),
                        t.schemaPathOf("tor"), inst.getValue() == null ? Map.of() : inst.getValue()),
                        Optional.ofNullable(inst.getKey()));
                tor.add(c);
                advertises |= c.advertiseOnNostr();
            }
        } else {
            t.raw("tor");
        }
        for (final String[] other : new String[][] {{"tcp", Skim.TCP}, {"nym", Skim.NYM}}) {
            if (!t.presentKeys().contains(other[0])) {
                t.raw(other[0]);
                continue;
            }
            final Set<String> keys = Skim.keys(other[1]);
            for (final Map.Entry<String, Object> inst : Skim.instances(t, other[0], keys)) {
                final String path = inst.getKey() == null ? other[0] : other[0] + "." + inst.getKey();
                final ConfigReader r = ConfigReader.of(t.problems(), t.pathOf(path), t.schemaPathOf(other[0]),
                        inst.getValue());
                final Map<String, Object> values = Skim.read(r, other[1]);
                advertises |= Boolean.TRUE.equals(values.get("advertise_on_nostr"));
                if ("tcp".equals(other[0])) {
                    tcp.add(tcp(r, values, Optional.ofNullable(inst.getKey())));
                } else {
                    nym.add(nym(r, values, Optional.ofNullable(inst.getKey())));
                }
                r.finish();
            }
        }
        t.finish();
        return advertises;
    }

    private static TcpConfig tcp(final ConfigReader r, final Map<String, Object> v, final Optional<String> name) {
        final TcpConfig d = TcpConfig.DEFAULTS;
        final Optional<String> bind = Optional.ofNullable((String) v.get("bind_addr"));
        if (bind.isPresent() && SocketAddresses.parseLiteral(bind.get()) == null) {
            r.error("bind_addr", "expected an IP address with port (\"0.0.0.0:8443\" or \"[::]:8443\"), got \""
                    + bind.get() + "\"");
        }
        final int mtu = intValue(v, "mtu", d.mtu());
        if (mtu < 1280) {
            r.error("mtu", "must be at least 1280, got " + mtu);
        }
        final int timeout = intValue(v, "connect_timeout_ms", d.connectTimeoutMs());
        if (timeout <= 0) {
            r.error("connect_timeout_ms", "must be positive");
        }
        return new TcpConfig(name, bind, mtu, timeout,
                v.containsKey("nodelay") ? (Boolean) v.get("nodelay") : d.nodelay(),
                intValue(v, "keepalive_secs", d.keepaliveSecs()),
                Math.max(1, intValue(v, "recv_buf_size", d.recvBufSize())),
                Math.max(1, intValue(v, "send_buf_size", d.sendBufSize())),
                v.containsKey("max_inbound_connections")
                        ? OptionalInt.of(intValue(v, "max_inbound_connections", 0))
                        : OptionalInt.empty(),
                Boolean.TRUE.equals(v.get("advertise_on_nostr")),
                Optional.ofNullable((String) v.get("external_addr")));
    }

    /** {@code transports.nym}: the reference's keys and defaults; what its start would refuse is refused here. */
    private static NymConfig nym(final ConfigReader r, final Map<String, Object> v, final Optional<String> name) {
        final NymConfig d = NymConfig.DEFAULTS;
        final String socks5 = v.containsKey("socks5_addr") ? (String) v.get("socks5_addr") : d.socks5Addr();
        if (!TorSection.isHostPort(socks5)) {
            r.error("socks5_addr", "expected host:port or IP:port of nym-socks5-client, got \"" + socks5 + "\"");
        }
        final int mtu = intValue(v, "mtu", d.mtu());
        if (mtu < 1280) {
            r.error("mtu", "must be at least 1280, got " + mtu);
        }
        final long timeout = v.get("connect_timeout_ms") instanceof Number n ? n.longValue() : d.connectTimeoutMs();
        if (timeout <= 0) {
            r.error("connect_timeout_ms", "must be positive");
        }
        final long startup = v.get("startup_timeout_secs") instanceof Number n ? n.longValue()
                : d.startupTimeoutSecs();
        return new NymConfig(name, socks5, timeout, mtu, Math.min(startup, Long.MAX_VALUE / 1_000_000_000L));
    }

    /** A schema value as an int, saturated (sizes and timeouts beyond 2^31 mean "as large as possible"). */
    private static int intValue(final Map<String, Object> v, final String key, final int dflt) {
        final Object o = v.get(key);
        if (!(o instanceof Number n)) {
            return dflt;
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, n.longValue()));
    }

    private static UdpConfig udp(final ConfigReader r, final Optional<String> name) {
        final UdpConfig d = UdpConfig.DEFAULTS;
        final String bind = r.string("bind_addr", d.bindAddr());
        if (r.has("bind_addr") && SocketAddresses.parseLiteral(bind) == null) {
            r.error("bind_addr", "expected an IP address with port (\"0.0.0.0:2121\" or \"[::]:2121\"), got \""
                    + bind + "\"");
        }
        final UdpConfig udp = new UdpConfig(name, bind, (int) r.integer("mtu", d.mtu(), 1, 0xFFFF),
                (int) r.integer("recv_buf_size", d.recvBufSize(), 1, Integer.MAX_VALUE),
                (int) r.integer("send_buf_size", d.sendBufSize(), 1, Integer.MAX_VALUE),
                r.bool("advertise_on_nostr", d.advertiseOnNostr()), r.bool("public", d.isPublic()),
                r.optString("external_addr"), r.bool("outbound_only", d.outboundOnly()),
                r.bool("accept_connections", d.acceptConnections()));
        r.finish();
        return udp;
    }

    private static EthernetConfig ethernet(final ConfigReader r, final Optional<String> name) {
        final EthernetConfig d = EthernetConfig.defaults("");
        final String iface = r.requiredString("interface").orElse("");
        if (r.has("interface") && (iface.isEmpty() || iface.length() > 15
                || !iface.chars().allMatch(c -> c > ' ' && c < 127 && c != '/'))) {
            r.error("interface", "expected an interface name of 1-15 printable ASCII characters without '/', got \""
                    + iface + "\"");
        }
        final int etherType = (int) r.integer("ethertype", d.etherType(), 0x0600, 0xFFFF);
        final Optional<Integer> mtu = r.has("mtu")
                ? Optional.of((int) r.integer("mtu", 0, 114, 0xFFFF)) : Optional.empty();
        if (r.has("listen") && r.has("discovery")) {
            // master's serde alias: both spellings at once is a duplicate field there.
            r.error("discovery", "is the old spelling of listen; set only one of them");
        }
        final boolean listen = r.has("listen") ? r.bool("listen", d.listen()) : r.bool("discovery", d.listen());
        final EthernetConfig e = new EthernetConfig(name, iface, etherType, mtu,
                (int) r.integer("recv_buf_size", d.recvBufSize(), 1, Integer.MAX_VALUE),
                (int) r.integer("send_buf_size", d.sendBufSize(), 1, Integer.MAX_VALUE), listen,
                r.bool("announce", d.announce()), r.bool("auto_connect", d.autoConnect()),
                r.bool("accept_connections", d.acceptConnections()),
                r.integer("beacon_interval_secs", d.beaconIntervalSecs(), 0, Long.MAX_VALUE));
        r.raw("listen");
        r.raw("discovery");
        r.finish();
        return e;
    }

    private static BleConfig ble(final ConfigReader r, final Optional<String> name) {
        final BleConfig d = BleConfig.DEFAULTS;
        final String adapter = r.string("adapter", d.adapter());
        if (!adapter.matches("[A-Za-z0-9_]{1,32}")) {
            r.error("adapter", "expected a BlueZ adapter name such as hci0 (or \"default\"), got \"" + adapter + "\"");
        }
        final BleConfig ble = new BleConfig(name, adapter,
                (int) r.integer("psm", d.psm(), 0x01, 0xFF),
                (int) r.integer("mtu", d.mtu(), BleConfig.MIN_MTU, 0xFFFF),
                (int) r.integer("max_connections", d.maxConnections(), 1, 0xFFFF),
                r.integer("connect_timeout_ms", d.connectTimeoutMs(), 1, Long.MAX_VALUE / 1_000_000L),
                r.bool("advertise", d.advertise()), r.bool("scan", d.scan()),
                r.bool("auto_connect", d.autoConnect()), r.bool("accept_connections", d.acceptConnections()),
                r.integer("probe_cooldown_secs", d.probeCooldownSecs(), 0, Long.MAX_VALUE / 1_000_000_000L));
        r.finish();
        return ble;
    }

    private static List<PeerConfig> peers(final ConfigReader top, final ConfigReader.Problems problems,
            final boolean nostr, final Set<String> udpNames) {
        final Object raw = top.raw("peers");
        if (raw == null) {
            return List.of();
        }
        if (!(raw instanceof List<?> list)) {
            top.error("peers", "expected a list, got " + ConfigReader.describe(raw));
            return List.of();
        }
        final List<PeerConfig> peers = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            final PeerConfig p = peer(ConfigReader.of(problems, "peers[" + i + "]", list.get(i)), nostr, udpNames);
            if (p != null) {
                peers.add(p);
            }
        }
        return peers;
    }

    private static PeerConfig peer(final ConfigReader r, final boolean nostr, final Set<String> udpNames) {
        PeerIdentity identity = null;
        final Optional<String> npub = r.requiredString("npub");
        if (npub.isPresent()) {
            try {
                identity = PeerIdentity.fromNpub(npub.get());
            } catch (final IdentityFormatException e) {
                r.error("npub", "expected a bech32 npub1... public key (hex is not accepted here): "
                        + e.getMessage());
            }
        }
        final Optional<String> alias = r.optString("alias");
        if (alias.isPresent() && !Hostnames.isValid(alias.get())) {
            r.warn("alias", "\"" + alias.get() + "\" is not a valid hostname (1-63 of A-Z a-z 0-9 -, no leading"
                    + " or trailing -, not starting with npub1); it will not resolve as NAME.fips or in the ACL");
        }
        final List<PeerConfig.Address> addresses = new ArrayList<>();
        final Object rawAddrs = r.raw("addresses");
        if (rawAddrs instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                final ConfigReader a = ConfigReader.of(r.problems(), r.pathOf("addresses[" + i + "]"), list.get(i));
                final PeerConfig.Address addr = address(a, udpNames);
                if (addr != null) {
                    addresses.add(addr);
                }
            }
        } else if (rawAddrs != null) {
            r.error("addresses", "expected a list, got " + ConfigReader.describe(rawAddrs));
        }
        final PeerConfig.ConnectPolicy policy = r.enumValue("connect_policy", PeerConfig.ConnectPolicy.class,
                PeerConfig.ConnectPolicy.AUTO_CONNECT);
        if (policy != PeerConfig.ConnectPolicy.AUTO_CONNECT) {
            r.warn("connect_policy", "not implemented by the reference either; the peer is simply not dialled");
        }
        final boolean autoReconnect = r.bool("auto_reconnect", true);
        final boolean viaNostr = r.bool("via_nostr", false);
        if (viaNostr && !nostr) {
            r.error("via_nostr", "true requires node.discovery.nostr.enabled: true");
        }
        if (!(rawAddrs instanceof List<?> l && !l.isEmpty()) && !viaNostr) {
            r.error("addresses", "a peer needs at least one address (or via_nostr: true)");
        }
        r.finish();
        return identity == null ? null
                : new PeerConfig(npub.get(), identity, alias, addresses, policy, autoReconnect, viaNostr);
    }

    private static PeerConfig.Address address(final ConfigReader a, final Set<String> udpNames) {
        final Optional<String> transport = a.requiredString("transport");
        final Optional<String> addr = a.requiredString("addr");
        final int priority = a.u8("priority", PeerConfig.DEFAULT_PRIORITY);
        a.finish();
        if (transport.isEmpty() || addr.isEmpty()) {
            return null;
        }
        final String kind = PeerConfig.Address.kindOf(transport.get());
        if (!TRANSPORT_NAMES.contains(kind)) {
            a.error("transport", "expected one of " + String.join(", ", new TreeSet<>(TRANSPORT_NAMES))
                    + " (or udp/<instance>), got \"" + transport.get() + "\"");
            return null;
        }
        final Optional<String> instance = PeerConfig.Address.instanceOf(transport.get());
        if (instance.isPresent() && !"udp".equals(kind)) {
            a.error("transport", "only udp can name an instance (udp/<instance>), got \"" + transport.get() + "\"");
            return null;
        }
        if (instance.isPresent() && !udpNames.contains(instance.get())) {
            a.error("transport", "\"" + transport.get() + "\" names no transports.udp instance ("
                    + (udpNames.isEmpty() ? "transports.udp has no named instances"
                    : "configured: " + String.join(", ", udpNames)) + ")");
            return null;
        }
        if ("tor".equals(kind) || "nym".equals(kind)) {
            try {
                if ("tor".equals(kind)) {
                    TorAddress.parse(addr.get());
                } else {
                    TorAddress.parseNym(addr.get());
                }
            } catch (final TorAddressException e) {
                a.error("addr", e.getMessage());
                return null;
            }
        } else if ("ble".equals(kind)) {
            if (!addr.get().matches("[A-Za-z0-9_]{1,32}/([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}(/random)?")) {
                a.error("addr", "expected adapter/AA:BB:CC:DD:EE:FF for ble (optionally .../random), got \""
                        + addr.get() + "\"");
            }
        } else if ("ethernet".equals(kind)) {
            try {
                EthernetAddress.parse(addr.get());
            } catch (final IllegalArgumentException e) {
                a.error("addr", e.getMessage());
            }
        } else if (!"udp".equals(kind) && !"tcp".equals(kind)) {
            a.warn("transport", "\"" + transport.get() + "\" not supported yet; this address is skipped when dialling");
        } else if (!("udp".equals(kind) && "nat".equalsIgnoreCase(addr.get()))
                && SocketAddresses.parseHostPort(addr.get()) == null) {
            // udp "nat" is reached by NAT traversal through Nostr signalling (the node warns when Nostr is off)
            a.error("addr", "expected host:port for udp (a DNS name or IP, port 1-65535), got \"" + addr.get() + "\"");
        }
        return new PeerConfig.Address(transport.get(), addr.get(), priority);
    }

    /** {@code gateway.*}: types and unknown keys checked; null when the block is absent or empty. */
    private static GatewayConfig gateway(final ConfigReader g) {
        if (g.presentKeys().isEmpty()) {
            g.finish();
            return null;
        }
        final Map<String, Object> top = Skim.read(g, Skim.GATEWAY);
        final ConfigReader dns = g.child("dns");
        final Map<String, Object> d = Skim.read(dns, Skim.GATEWAY_DNS);
        dns.finish();
        final ConfigReader ct = g.child("conntrack");
        final Map<String, Object> c = Skim.read(ct, Skim.GATEWAY_CONNTRACK);
        ct.finish();
        final GatewayConfig.Conntrack cd = GatewayConfig.Conntrack.DEFAULTS;
        final GatewayConfig.Conntrack conntrack = new GatewayConfig.Conntrack(
                (long) c.getOrDefault("tcp_established", cd.tcpEstablished()),
                (long) c.getOrDefault("udp_timeout", cd.udpTimeout()),
                (long) c.getOrDefault("udp_assured", cd.udpAssured()),
                (long) c.getOrDefault("icmp_timeout", cd.icmpTimeout()));
        final List<GatewayConfig.PortForward> pfs = new ArrayList<>();
        final Object forwards = g.raw("port_forwards");
        if (forwards instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                final ConfigReader pf = ConfigReader.of(g.problems(), g.pathOf("port_forwards[" + i + "]"),
                        list.get(i));
                final Map<String, Object> f = Skim.read(pf, Skim.GATEWAY_PORT_FORWARD);
                if (!f.containsKey("listen_port")) {
                    pf.error("listen_port", "required");
                }
                if (!f.containsKey("proto")) {
                    pf.error("proto", "required (tcp or udp)");
                }
                final Object target = f.get("target");
                final InetSocketAddress t = target instanceof String s ? GatewayConfig.literal(s) : null;
                if (target != null && (t == null || !(t.getAddress() instanceof Inet6Address))) {
                    pf.error("target", "expected an IPv6 socket address [addr]:port, got \"" + target + "\"");
                } else if (t != null && f.containsKey("listen_port") && f.containsKey("proto")) {
                    pfs.add(new GatewayConfig.PortForward((int) f.get("listen_port"),
                            GatewayConfig.Proto.valueOf(((String) f.get("proto")).toUpperCase(Locale.ROOT)), t));
                }
                pf.finish();
            }
        } else if (forwards != null) {
            g.error("port_forwards", "expected a list, got " + ConfigReader.describe(forwards));
        }
        g.finish();
        return new GatewayConfig((boolean) top.getOrDefault("enabled", false),
                (String) top.getOrDefault("pool", ""), (String) top.getOrDefault("lan_interface", ""),
                (long) top.getOrDefault("pool_grace_period", GatewayConfig.DEFAULT_GRACE_PERIOD),
                (String) d.getOrDefault("listen", GatewayConfig.DEFAULT_DNS_LISTEN),
                (String) d.getOrDefault("upstream", GatewayConfig.DEFAULT_DNS_UPSTREAM),
                ((Number) d.getOrDefault("ttl", (int) GatewayConfig.DEFAULT_DNS_TTL)).longValue() & 0xFFFF_FFFFL,
                conntrack, pfs);
    }

    /** The reference's whole-config checks (operator.md §1.1, "Cross-field validation"). */
    private static void crossChecks(final ConfigReader.Problems problems, final NodeSection.Result node,
            final List<UdpConfig> udp, final boolean otherAdvertises, final List<PeerConfig> peers) {
        final boolean nostr = Boolean.TRUE.equals(node.nostr().get("enabled"));
        final boolean udpAdvertises = udp.stream().anyMatch(UdpConfig::effectiveAdvertiseOnNostr);
        if ((udpAdvertises || otherAdvertises) && !nostr) {
            problems.error("transports", "a transport sets advertise_on_nostr: true but node.discovery.nostr.enabled"
                    + " is false");
        }
        if (node.nostr().get("max_concurrent_offers_per_npub") instanceof Number n && n.longValue() == 0) {
            // master's check (§1.14): 0 reads as "no limit" but would refuse every inbound offer
            problems.error("node.discovery.nostr.max_concurrent_offers_per_npub", "is 0, which refuses every inbound"
                    + " traversal offer; leave it out for the default (4) or set a positive allowance");
        }
        if (nostr && udp.stream().anyMatch(u -> u.effectiveAdvertiseOnNostr() && !u.isPublic())) {
            if (node.nostr().get("dm_relays") instanceof List<?> l && l.isEmpty()) {
                problems.error("node.discovery.nostr.dm_relays", "must not be empty when a UDP transport advertises"
                        + " as NAT");
            }
            if (node.nostr().get("stun_servers") instanceof List<?> l && l.isEmpty()) {
                problems.error("node.discovery.nostr.stun_servers", "must not be empty when a UDP transport"
                        + " advertises as NAT");
            }
        }
        for (final UdpConfig u : udp) {
            if (u.outboundOnly() || !SocketAddresses.isLoopback(u.bindAddr())) {
                continue;
            }
            final boolean external = peers.stream().flatMap(p -> p.addresses().stream())
                    .anyMatch(a -> "udp".equals(a.transport()) && !"nat".equalsIgnoreCase(a.addr())
                            && !SocketAddresses.isLoopback(a.addr()));   // "nat" punches from its own socket
            if (external) {
                problems.error("transports." + (u.name().isPresent() ? "udp." + u.name().get() : "udp") + ".bind_addr",
                        "is loopback (" + u.bindAddr() + ") but a peer has a non-loopback UDP address, which a"
                        + " loopback-bound socket cannot reach; bind 0.0.0.0:2121 or set outbound_only: true");
            }
        }
    }
}
