package net.fips.dataplane.tun;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.Inet6Address;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.RtNetlink;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;
import net.fips.ffm.linux.TunIoctl;

/**
 * The node's layer-3 TUN interface ({@code fips0}) on Linux, created and configured through FFM only
 * (transports.md §7.1/§7.2, operator.md §4.5):
 * <ol>
 *   <li>refuse when IPv6 is disabled;</li>
 *   <li>open the clone device ({@code O_RDWR | O_NONBLOCK | O_CLOEXEC});</li>
 *   <li>if an interface of that name exists, delete it ({@link TunConfig#replaceExisting()}, as the reference)
 *       or fail with {@link TunException.Reason#NAME_IN_USE};</li>
 *   <li>{@code TUNSETIFF} with {@code IFF_TUN | IFF_NO_PI}: single queue, no packet-information prefix, not
 *       persistent; with {@link TunConfig#offload()} also {@code IFF_VNET_HDR}, then {@code TUNSETVNETHDRSZ} 10
 *       and {@code TUNSETOFFLOAD} with {@code TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6}, falling back to fewer bits,
 *       to none, and to no header at all as the kernel refuses them ({@link #offloadDescription()});</li>
 *   <li>over rtnetlink, each request acknowledged: add the FIPS address as a /128, set the MTU, set the link up,
 *       add the route {@code fd00::/8 dev <name>}, and add the policy rule {@code to fd00::/8 lookup main priority
 *       5265} (failure of the rule is ignored, like the reference; see {@link #policyRuleProblem()}).</li>
 * </ol>
 * Every read returns one whole IPv6 (or other) packet as the kernel routed it into the device; every write must
 * be one whole packet. {@link #close()} closes the descriptor, which removes the device and with it the address
 * and route; the policy rule is left in place, as the reference leaves it (the next start finds it, EEXIST).
 *
 * <p>Threading: one thread reads through {@link #reader()}, another may write through {@link #writer()}; each
 * has its own native state and neither allocates per packet. {@link #wakeup()} may be called from any thread;
 * stop both threads before {@link #close()}.
 */
public final class TunDevice implements AutoCloseable {
    /** The FIPS address space, {@code fd00::/8}, routed into the device. */
    public static final int FIPS_PREFIX_LENGTH = 8;
    /** Prefix length of the node's own address on the device. */
    public static final int ADDRESS_PREFIX_LENGTH = 128;
    /** Priority of the reference's policy rule for {@code fd00::/8}. */
    public static final int POLICY_RULE_PRIORITY = 5265;

    static final String DISABLE_IPV6_SYSCTL = "/proc/sys/net/ipv6/conf/all/disable_ipv6";
    private static final byte[] FIPS_PREFIX = new byte[16];

    static {
        FIPS_PREFIX[0] = (byte) 0xfd;
    }

    private final Arena arena;
    private final int fd;
    private final WakeFd wake;
    private final String name;
    private final int index;
    private final int mtu;
    private final Inet6Address address;
    private final boolean policyRuleInstalled;
    private final String policyRuleProblem;
    private final TunReader reader;
    private final TunWriter writer;
    private final boolean vnet;
    private final int offloadFlags;
    private final String offloadDescription;

    private TunDevice(final Arena arena, final int fd, final WakeFd wake, final String name, final int index,
                      final TunConfig cfg, final boolean ruleInstalled, final String ruleProblem,
                      final Offload offload) {
        this.arena = arena;
        this.fd = fd;
        this.wake = wake;
        this.name = name;
        this.index = index;
        this.mtu = cfg.mtu();
        this.address = cfg.address();
        this.policyRuleInstalled = ruleInstalled;
        this.policyRuleProblem = ruleProblem;
        this.vnet = offload.vnet;
        this.offloadFlags = offload.flags;
        this.offloadDescription = offload.description;
        this.reader = new TunReader(arena, fd, wake.fd());
        this.writer = new TunWriter(arena, fd, vnet);
    }

    /** What the offload probe settled on. */
    private record Offload(boolean vnet, int flags, String description) {
    }

    /** The TUN_F_* sets tried in order, each a fallback for the one before. */
    private static final int[] OFFLOAD_TRIES = {
        TunIoctl.TUN_F_CSUM | TunIoctl.TUN_F_TSO4 | TunIoctl.TUN_F_TSO6,
        TunIoctl.TUN_F_CSUM | TunIoctl.TUN_F_TSO6,
        TunIoctl.TUN_F_CSUM,
    };

    /** TUNSETIFF with the virtio-net header (then its size and the offloads), or plain; never fails for offloads. */
    private static Offload attach(final int fd, final TunConfig config, final String[] actual) throws ErrnoException {
        final int plain = TunIoctl.IFF_TUN | TunIoctl.IFF_NO_PI;
        if (!config.offload()) {
            actual[0] = TunIoctl.setIff(fd, config.name(), plain);
            return new Offload(false, 0, "off (tun.offload: off)");
        }
        try {
            actual[0] = TunIoctl.setIff(fd, config.name(), plain | TunIoctl.IFF_VNET_HDR);
        } catch (final ErrnoException e) {
            if (e.errno() != Errno.EINVAL) {
                throw e;
            }
            actual[0] = TunIoctl.setIff(fd, config.name(), plain);
            return new Offload(false, 0, "off (the kernel refused IFF_VNET_HDR: " + e.getMessage() + ")");
        }
        try {
            TunIoctl.setVnetHdrSize(fd, TunIoctl.VIRTIO_NET_HDR_SIZE);
        } catch (final ErrnoException e) {
            // the kernel's default header size is sizeof(struct virtio_net_hdr), which is what we use
        }
        String refused = "";
        for (final int flags : OFFLOAD_TRIES) {
            try {
                TunIoctl.setOffload(fd, flags);
                return new Offload(true, flags, "virtio-net header, TUNSETOFFLOAD " + offloadNames(flags)
                        + (refused.isEmpty() ? "" : " (refused: " + refused + ")"));
            } catch (final ErrnoException e) {
                refused += (refused.isEmpty() ? "" : "; ") + offloadNames(flags) + ": " + e.getMessage();
            }
        }
        return new Offload(true, 0, "virtio-net header without offloads (refused: " + refused + ")");
    }

    /** @return e.g. {@code csum|tso4|tso6} */
    public static String offloadNames(final int flags) {
        final StringBuilder b = new StringBuilder();
        if ((flags & TunIoctl.TUN_F_CSUM) != 0) {
            b.append("csum");
        }
        if ((flags & TunIoctl.TUN_F_TSO4) != 0) {
            b.append(b.isEmpty() ? "" : "|").append("tso4");
        }
        if ((flags & TunIoctl.TUN_F_TSO6) != 0) {
            b.append(b.isEmpty() ? "" : "|").append("tso6");
        }
        return b.isEmpty() ? "none" : b.toString();
    }

    /**
     * Creates and configures the device.
     *
     * @param config the settings
     * @return the device, up, with its address and route
     * @throws TunException with a {@link TunException.Reason} and a message naming the failed step; nothing is
     *                      left behind on failure (the half-made device goes with its descriptor)
     */
    public static TunDevice open(final TunConfig config) throws TunException {
        validate(config);
        if (!Syscalls.isAvailable()) {
            throw new TunException(TunException.Reason.NATIVE_ACCESS, "native access", 0,
                    "TUN device needs native access (--enable-native-access=net.fips.ffm)",
                    Syscalls.unavailabilityCause());
        }
        checkIpv6Enabled();
        final String name = config.name();
        final String path = config.devicePath();
        final int fd;
        try {
            fd = Syscalls.open(path, Linux.O_RDWR | Linux.O_NONBLOCK | Linux.O_CLOEXEC);
        } catch (final ErrnoException e) {
            throw openFailure(path, e);
        }
        WakeFd wake = null;
        try (RtNetlink nl = RtNetlink.open()) {
            replaceOrRefuse(nl, config);
            final String[] attached = new String[1];
            final Offload offload;
            try {
                offload = attach(fd, config, attached);
            } catch (final ErrnoException e) {
                throw setIffFailure(name, e);
            }
            final String actual = attached[0];
            final int index = step("look up the index of " + actual, () -> RtNetlink.linkIndex(actual));
            if (index == 0) {
                throw new TunException(TunException.Reason.CONFIGURE_FAILED, "look up " + actual, Errno.ENODEV,
                        "TUN interface " + actual + " vanished right after TUNSETIFF", null);
            }
            final String addr = hostAddress(config.address()) + "/" + ADDRESS_PREFIX_LENGTH;
            step("add address " + addr + " to " + actual, () -> {
                nl.addAddress(index, config.address().getAddress(), ADDRESS_PREFIX_LENGTH, addr + " dev " + actual);
                return 0;
            });
            step("set MTU " + config.mtu() + " on " + actual, () -> {
                nl.setMtu(index, config.mtu(), "mtu " + config.mtu() + " dev " + actual);
                return 0;
            });
            step("bring " + actual + " up", () -> {
                nl.setUp(index, "dev " + actual + " up");
                return 0;
            });
            final String route = "fd00::/" + FIPS_PREFIX_LENGTH + " dev " + actual;
            step("add route " + route, () -> {
                nl.addRoute(index, FIPS_PREFIX, FIPS_PREFIX_LENGTH, route);
                return 0;
            });
            boolean ruleInstalled = false;
            String ruleProblem = config.policyRule() ? null : "not requested";
            if (config.policyRule()) {
                try {
                    nl.addRule(FIPS_PREFIX, FIPS_PREFIX_LENGTH, POLICY_RULE_PRIORITY, RtNetlink.RT_TABLE_MAIN,
                            "to fd00::/8 lookup main priority " + POLICY_RULE_PRIORITY);
                    ruleInstalled = true;
                } catch (final ErrnoException e) {
                    ruleProblem = e.errno() == Errno.EEXIST ? "already present" : e.getMessage();
                }
            }
            wake = WakeFd.open();
            return new TunDevice(Arena.ofShared(), fd, wake, actual, index, config, ruleInstalled, ruleProblem,
                    offload);
        } catch (final TunException e) {
            closeOnFailure(fd, wake);
            throw e;
        } catch (final ErrnoException | RuntimeException e) {
            closeOnFailure(fd, wake);
            throw new TunException(classify(e), "configure " + name, errnoOf(e),
                    "TUN device " + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * A stand-in device over an already open packet descriptor instead of the clone device, for runs with no TUN
     * (the daemon's ahead-of-time training, tests without root): {@code fd} must keep packet boundaries (one end of
     * an {@code AF_UNIX SOCK_SEQPACKET} pair, see {@link TunStandIn}) and be non-blocking. The same reader, writers
     * and offload handling run over it as over a real device; with {@link TunConfig#offload()} every packet carries
     * the virtio-net header and the offloads count as {@code csum|tso6}, as the kernel grants them. No interface,
     * address, route or rule is made (index 0). The device owns {@code fd} from here and closes it.
     *
     * @throws TunException when the configuration is invalid or the wake-up eventfd cannot be made ({@code fd} is
     *                      closed then)
     */
    public static TunDevice overDescriptor(final int fd, final TunConfig config) throws TunException {
        WakeFd wake = null;
        try {
            validate(config);
            wake = WakeFd.open();
            final Offload offload = config.offload()
                    ? new Offload(true, TunIoctl.TUN_F_CSUM | TunIoctl.TUN_F_TSO6, "virtio-net header (stand-in)")
                    : new Offload(false, 0, "off (stand-in)");
            return new TunDevice(Arena.ofShared(), fd, wake, config.name(), 0, config, false, "stand-in", offload);
        } catch (final ErrnoException e) {
            closeOnFailure(fd, wake);
            throw new TunException(TunException.Reason.CONFIGURE_FAILED, "open a wake-up eventfd", e.errno(),
                    "TUN stand-in: " + e.getMessage(), e);
        } catch (final TunException | RuntimeException e) {
            closeOnFailure(fd, wake);
            throw e;
        }
    }

    private static void validate(final TunConfig c) throws TunException {
        final String n = c.name();
        final byte[] bytes = n.getBytes(StandardCharsets.US_ASCII);
        boolean nameOk = !n.isEmpty() && bytes.length < Linux.IFNAMSIZ && !n.equals(".") && !n.equals("..");
        for (int i = 0; i < n.length() && nameOk; i++) {
            final char ch = n.charAt(i);
            nameOk = ch > ' ' && ch < 0x7f && ch != '/' && ch != ':';
        }
        if (!nameOk) {
            throw invalid("interface name \"" + n + "\" must be 1-" + (Linux.IFNAMSIZ - 1)
                    + " printable ASCII characters without '/', ':' or spaces");
        }
        if (c.mtu() < TunConfig.MTU_MIN || c.mtu() > TunConfig.MTU_MAX) {
            throw invalid("MTU " + c.mtu() + " is outside " + TunConfig.MTU_MIN + "-" + TunConfig.MTU_MAX
                    + " (IPv6 needs at least 1280)");
        }
        if ((c.address().getAddress()[0] & 0xff) != 0xfd) {
            throw invalid("address " + hostAddress(c.address()) + " is not a FIPS address (fd00::/8)");
        }
        if (c.devicePath().isEmpty()) {
            throw invalid("device path is empty");
        }
    }

    private static TunException invalid(final String message) {
        return new TunException(TunException.Reason.INVALID_CONFIG, "check configuration", 0,
                "TUN configuration: " + message, null);
    }

    private static void checkIpv6Enabled() throws TunException {
        final Path p = Path.of(DISABLE_IPV6_SYSCTL);
        final String value;
        try {
            value = Files.readString(p).trim();
        } catch (final IOException e) {
            return;   // no such sysctl (IPv6 not built in): the address step will say what is wrong
        }
        if (value.equals("1")) {
            throw new TunException(TunException.Reason.IPV6_DISABLED, "check IPv6", 0,
                    "IPv6 is disabled (set net.ipv6.conf.all.disable_ipv6=0); the TUN device needs it", null);
        }
    }

    private static TunException openFailure(final String path, final ErrnoException e) {
        final int errno = e.errno();
        if (errno == Errno.ENOENT || errno == Errno.ENODEV || errno == Errno.ENXIO
                || errno == Errno.ENOTDIR) {
            return new TunException(TunException.Reason.DEVICE_MISSING, "open " + path, errno,
                    "no TUN device at " + path + " (" + e.getMessage() + "); is the tun driver available "
                            + "(CONFIG_TUN, modprobe tun) and the device node present?", e);
        }
        if (errno == Errno.EACCES || errno == Errno.EPERM) {
            return new TunException(TunException.Reason.PERMISSION, "open " + path, errno,
                    "cannot open " + path + " (" + e.getMessage() + "); creating the TUN device needs "
                            + "CAP_NET_ADMIN (run as root or grant the capability)", e);
        }
        return new TunException(TunException.Reason.CONFIGURE_FAILED, "open " + path, errno,
                "cannot open " + path + ": " + e.getMessage(), e);
    }

    private static TunException setIffFailure(final String name, final ErrnoException e) {
        final int errno = e.errno();
        if (errno == Errno.EPERM || errno == Errno.EACCES) {
            return permission("create TUN interface " + name + " (TUNSETIFF)", e);
        }
        if (errno == Errno.EBUSY) {
            return new TunException(TunException.Reason.NAME_IN_USE, "create TUN interface " + name, errno,
                    "interface " + name + " is in use: another process holds that TUN device (" + e.getMessage()
                            + ")", e);
        }
        if (errno == Errno.EINVAL) {
            int existing = 0;
            try {
                existing = RtNetlink.linkIndex(name);
            } catch (final ErrnoException ignored) {
                // Fall through to the generic report.
            }
            if (existing != 0) {
                return new TunException(TunException.Reason.NAME_IN_USE, "create TUN interface " + name, errno,
                        "interface name " + name + " is in use by a device that is not a TUN device ("
                                + e.getMessage() + ")", e);
            }
        }
        return new TunException(TunException.Reason.CONFIGURE_FAILED, "create TUN interface " + name, errno,
                "cannot create TUN interface " + name + ": " + e.getMessage(), e);
    }

    private static void replaceOrRefuse(final RtNetlink nl, final TunConfig config) throws TunException {
        final String name = config.name();
        final int existing = step("look up interface " + name, () -> RtNetlink.linkIndex(name));
        if (existing == 0) {
            return;
        }
        if (!config.replaceExisting()) {
            throw new TunException(TunException.Reason.NAME_IN_USE, "create TUN interface " + name, Errno.EEXIST,
                    "interface name " + name + " is in use (an interface of that name exists, index " + existing
                            + "; replacing it is disabled)", null);
        }
        step("delete the existing interface " + name, () -> {
            nl.deleteLink(existing, "dev " + name);
            return 0;
        });
    }

    private static TunException permission(final String operation, final ErrnoException e) {
        return new TunException(TunException.Reason.PERMISSION, operation, e.errno(),
                operation + " failed: " + e.getMessage() + "; this needs CAP_NET_ADMIN (run as root or grant the "
                        + "capability)", e);
    }

    /** One configuration step whose errno becomes a typed error naming the step. */
    @FunctionalInterface
    private interface Step {
        int run() throws ErrnoException;
    }

    private static int step(final String operation, final Step s) throws TunException {
        try {
            return s.run();
        } catch (final ErrnoException e) {
            if (e.errno() == Errno.EPERM || e.errno() == Errno.EACCES) {
                throw permission(operation, e);
            }
            throw new TunException(TunException.Reason.CONFIGURE_FAILED, operation, e.errno(),
                    operation + " failed: " + e.getMessage(), e);
        }
    }

    private static TunException.Reason classify(final Exception e) {
        if (e instanceof ErrnoException ee && (ee.errno() == Errno.EPERM || ee.errno() == Errno.EACCES)) {
            return TunException.Reason.PERMISSION;
        }
        return TunException.Reason.CONFIGURE_FAILED;
    }

    private static int errnoOf(final Exception e) {
        return e instanceof ErrnoException ee ? ee.errno() : 0;
    }

    static String hostAddress(final Inet6Address a) {
        final String s = a.getHostAddress();
        final int pct = s.indexOf('%');
        return pct < 0 ? s : s.substring(0, pct);
    }

    private static void closeOnFailure(final int fd, final WakeFd wake) {
        Syscalls.closeQuietly(fd);
        if (wake != null) {
            wake.close();
        }
    }

    /**
     * @param rc a result of {@link TunReader#read} or {@link TunWriter#write}
     * @return whether it means the device is gone (deleted under us: EBADFD, EFAULT, EIO, ENODEV, EBADF)
     */
    public static boolean isDeviceGone(final int rc) {
        return rc == -Errno.EBADFD || rc == -Errno.EFAULT || rc == -Errno.EIO || rc == -Errno.ENODEV
                || rc == -Errno.EBADF;
    }

    /** @return the reading side (one thread) */
    public TunReader reader() {
        return reader;
    }

    /** @return the writing side (one thread) */
    public TunWriter writer() {
        return writer;
    }

    /**
     * An additional writing side for another thread (each data-plane worker writes with its own), with its native
     * state in {@code arena}.
     */
    public TunWriter newWriter(final Arena arena) {
        return new TunWriter(arena, fd, vnet);
    }

    /** Wakes a reader blocked in {@link TunReader#awaitReadable} or {@link TunReader#receive} (any thread). */
    public void wakeup() {
        wake.wake();
    }

    /**
     * @return whether every read and write carries a {@code struct virtio_net_hdr} (reads: {@link TunReader} hands
     *         the frame over as it is; the caller splits super-segments, see {@link TcpOffload})
     */
    public boolean vnetHeader() {
        return vnet;
    }

    /** @return the {@code TUN_F_*} bits the kernel accepted (0 without offloads) */
    public int offloadFlags() {
        return offloadFlags;
    }

    /** @return one line saying what the offload probe settled on, for the log */
    public String offloadDescription() {
        return offloadDescription;
    }

    /** @return the interface name the kernel gave the device */
    public String name() {
        return name;
    }

    /** @return the interface index */
    public int index() {
        return index;
    }

    /** @return the configured MTU */
    public int mtu() {
        return mtu;
    }

    /** @return the node's address on the device (/128) */
    public Inet6Address address() {
        return address;
    }

    /** @return whether this open added the {@code fd00::/8} policy rule */
    public boolean policyRuleInstalled() {
        return policyRuleInstalled;
    }

    /** @return why the rule was not added ({@code "already present"}, {@code "not requested"}, an error), or null */
    public String policyRuleProblem() {
        return policyRuleProblem;
    }

    /** @return the TUN descriptor (non-blocking) */
    public int fileDescriptor() {
        return fd;
    }

    /** Closes the descriptor, which deletes the interface with its address and route. Idempotent. */
    @Override
    public void close() {
        if (!wake.closeOnce()) {
            return;
        }
        Syscalls.closeQuietly(fd);
        arena.close();
    }

    @Override
    public String toString() {
        return "TunDevice{" + name + " #" + index + ", " + hostAddress(address) + "/128, mtu " + mtu + "}";
    }
}
