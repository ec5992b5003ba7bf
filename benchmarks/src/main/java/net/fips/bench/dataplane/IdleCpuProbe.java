package net.fips.bench.dataplane;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import com.sun.management.OperatingSystemMXBean;

import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;

/**
 * A manual probe, not a benchmark: two linked data planes on loopback (two workers each) left idle, then the CPU
 * time every data-plane thread and the whole process used over the idle spell. An idle node should use next to
 * nothing. Run with {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar
 * net.fips.bench.dataplane.IdleCpuProbe [seconds]}.
 */
public final class IdleCpuProbe {
    private IdleCpuProbe() {
    }

    /** @param args optional idle seconds (default 10) */
    public static void main(final String[] args) throws Exception {
        final long seconds = args.length > 0 ? Long.parseLong(args[0]) : 10;
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final OperatingSystemMXBean os =
                (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (DataPlane a = plane(); DataPlane b = plane()) {
            Links.connect(a, b);
            // let start-up (class loading, JIT of the first cycles) settle before measuring
            TimeUnit.SECONDS.sleep(2);
            final Map<String, Long> before = threadCpu(mx);
            final long processBefore = os.getProcessCpuTime();
            final long wallBefore = System.nanoTime();
            TimeUnit.SECONDS.sleep(seconds);
            final long wall = System.nanoTime() - wallBefore;
            final long process = os.getProcessCpuTime() - processBefore;
            final Map<String, Long> after = threadCpu(mx);
            System.out.printf("idle %.1f s, process CPU %.1f ms (%.2f%% of one core)%n", wall / 1e9, process / 1e6,
                    100.0 * process / wall);
            for (final Map.Entry<String, Long> e : after.entrySet()) {
                final long used = e.getValue() - before.getOrDefault(e.getKey(), 0L);
                System.out.printf("  %-22s %8.2f ms  %6.3f%%%n", e.getKey(), used / 1e6, 100.0 * used / wall);
            }
        }
    }

    private static DataPlane plane() throws Exception {
        final DataPlane dp = new DataPlane(new DataPlaneContext().workerCount(2));
        dp.addTransport(UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").mtuBytes(Links.MTU)));
        dp.start();
        return dp;
    }

    /** CPU ns of the data-plane threads; two planes have threads of the same name, so they are told apart. */
    private static Map<String, Long> threadCpu(final ThreadMXBean mx) {
        final Map<String, Long> cpu = new TreeMap<>();
        for (final ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info == null || !info.getThreadName().startsWith("fips-")) {
                continue;
            }
            final long ns = mx.getThreadCpuTime(info.getThreadId());
            cpu.put(info.getThreadName() + "#" + info.getThreadId(), ns);
        }
        return cpu;
    }
}
