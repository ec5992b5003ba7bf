package net.fips.sim;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Arrays;
import java.util.Random;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

import net.fips.control.mesh.MeshSettings;

/**
 * {@code bin/fips-sim}: builds a random mesh, runs a scenario on the simulator and prints one summary line last:
 * {@code sim: nodes=N links=L converged_sim_s=X wall_s=Y lookups_ok=K/M mean_stretch=Z}.
 *
 * <p>Scenarios: {@code converge} (all links up at t = 0), {@code churn} (after convergence, a tenth of the nodes
 * lose all their links, the rest re-converge, then they come back), {@code partition} (after convergence the mesh
 * is cut between the half of the nodes nearest to node 0 and the rest, which may fall apart into several
 * components; each component converges to its own root, then the cut heals). {@code converged_sim_s} is the
 * simulated time of the last convergence of the scenario, measured from the event that disturbed the mesh;
 * lookups run at the end, between random pairs.
 */
public final class FipsSim {
    private FipsSim() {
    }

    /** Parsed command line. */
    record Args(int nodes, double degree, long seed, String scenario, int lookups, long latencyMinMs,
                long latencyMaxMs, double loss, int limitSimSeconds, boolean verbose,
                Level logLevel) {
    }

    /**
     * Entry point; exit status 0 when the scenario converged and every lookup succeeded (the soak: no invariant
     * broke), 1 otherwise, 2 on usage.
     */
    public static void main(final String[] argv) {
        if (argv.length > 0 && argv[0].equals("soak")) {
            soakMain(Arrays.copyOfRange(argv, 1, argv.length));
            return;
        }
        final Args a;
        try {
            a = parse(argv);
        } catch (final IllegalArgumentException e) {
            System.err.println("fips-sim: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
            return;
        }
        if (a == null) {
            System.out.println(usage());
            return;
        }
        // A thousand nodes logging parent switches would bury the summary: warnings only unless asked.
        Logger.getLogger("").setLevel(a.logLevel());
        for (final Handler h : Logger.getLogger("").getHandlers()) {
            h.setLevel(a.logLevel());
        }
        final Result r = run(a, a.verbose() ? System.out : null);
        System.out.println(r.summary());
        System.exit(r.ok() ? 0 : 1);
    }

    static String soakUsage() {
        return String.join("\n",
                "Usage: fips-sim soak [--nodes N] [--hours H] [--seed S] [--degree D] [--present P]",
                "                     [--events-per-hour E] [--cycle-min C] [--quiet-min Q] [--check-s T]",
                "                     [--walks W] [--lookups M] [--reconverge-s R] [--heap-every-min K] [--loss P]",
                "Runs N simulated nodes for H hours of virtual time under churn (joins, leaves, restarts with the",
                "same identity, partitions and heals) and checks invariants throughout: no routing loops and no",
                "dead next hops (walks from every node to W sampled destinations every T s), bounded tables and",
                "caches, and after the quiet Q minutes that end each C-minute cycle: reconvergence within R s,",
                "every walk delivered and M sampled lookups (fresh discovery) delivered. Prints progress lines",
                "(#, with the used heap after a full collection every K virtual minutes), the first violations,",
                "and one summary line last.",
                "Defaults: --nodes 200 --hours 24 --seed 1 --degree 4 --present 0.9 --events-per-hour 60",
                "          --cycle-min 20 --quiet-min 5 --check-s 30 --walks 2 --lookups 50 --reconverge-s 600",
                "          --heap-every-min 60 --loss 0",
                "Exit status: 0 no invariant broke, 1 some did, 2 bad arguments.");
    }

    static Soak.Config parseSoak(final String[] argv) {
        int nodes = 200;
        double hours = 24;
        long seed = 1;
        double degree = 4;
        double present = 0.9;
        double events = 60;
        double cycleMin = 20;
        double quietMin = 5;
        long checkS = 30;
        int walks = 2;
        int lookups = 50;
        long reconverge = 600;
        double heapMin = 60;
        double loss = 0;
        for (int i = 0; i < argv.length; i++) {
            final String opt = argv[i];
            if (opt.equals("-h") || opt.equals("--help")) {
                return null;
            }
            if (i + 1 >= argv.length) {
                throw new IllegalArgumentException("unknown option or missing value: " + opt);
            }
            final String v = argv[++i];
            try {
                switch (opt) {
                    case "--nodes" -> nodes = Integer.parseInt(v);
                    case "--hours" -> hours = Double.parseDouble(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--degree" -> degree = Double.parseDouble(v);
                    case "--present" -> present = Double.parseDouble(v);
                    case "--events-per-hour" -> events = Double.parseDouble(v);
                    case "--cycle-min" -> cycleMin = Double.parseDouble(v);
                    case "--quiet-min" -> quietMin = Double.parseDouble(v);
                    case "--check-s" -> checkS = Long.parseLong(v);
                    case "--walks" -> walks = Integer.parseInt(v);
                    case "--lookups" -> lookups = Integer.parseInt(v);
                    case "--reconverge-s" -> reconverge = Long.parseLong(v);
                    case "--heap-every-min" -> heapMin = Double.parseDouble(v);
                    case "--loss" -> loss = Double.parseDouble(v);
                    default -> throw new IllegalArgumentException("unknown option: " + opt);
                }
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException("bad value for " + opt + ": " + v);
            }
        }
        if (nodes < 4) {
            throw new IllegalArgumentException("--nodes must be at least 4");
        }
        if (degree < 1 || degree > nodes - 1) {
            throw new IllegalArgumentException("--degree must be in [1, nodes-1]");
        }
        if (!(hours > 0) || !(present > 0 && present <= 1) || !(events > 0) || !(checkS > 0) || walks < 1
                || lookups < 0 || reconverge < 1 || heapMin < 0 || loss < 0 || loss >= 1) {
            throw new IllegalArgumentException("--hours, --present (0, 1], --events-per-hour, --check-s, --walks"
                    + " and --reconverge-s must be positive, --lookups and --heap-every-min not negative,"
                    + " --loss in [0, 1)");
        }
        if (!(quietMin > 0) || !(cycleMin > quietMin)) {
            throw new IllegalArgumentException("--cycle-min must be longer than --quiet-min, both positive");
        }
        return new Soak.Config(nodes, degree, seed, Math.round(hours * 3600), present, events,
                Math.round(cycleMin * 60), Math.round(quietMin * 60), checkS, walks, lookups, reconverge,
                Math.round(heapMin * 60), loss);
    }

    private static void soakMain(final String[] argv) {
        final Soak.Config c;
        try {
            c = parseSoak(argv);
        } catch (final IllegalArgumentException e) {
            System.err.println("fips-sim soak: " + e.getMessage());
            System.err.println(soakUsage());
            System.exit(2);
            return;
        }
        if (c == null) {
            System.out.println(soakUsage());
            return;
        }
        Logger.getLogger("").setLevel(Level.SEVERE);
        for (final Handler h : Logger.getLogger("").getHandlers()) {
            h.setLevel(Level.SEVERE);
        }
        System.out.printf(Locale.ROOT, "# soak: nodes=%d hours=%.2f seed=%d degree=%.1f present=%.2f"
                        + " events_per_hour=%.0f cycle_s=%d quiet_s=%d check_s=%d walks=%d lookups=%d"
                        + " reconverge_s=%d heap_every_s=%d loss=%.3f; java %s, %d CPUs, max heap %d MiB%n",
                c.nodes(), c.seconds() / 3600.0, c.seed(), c.degree(), c.initialPresent(), c.eventsPerHour(),
                c.cycleSecs(), c.quietSecs(), c.checkEverySecs(), c.walksPerNode(), c.lookups(),
                c.reconvergeLimitSecs(), c.heapEverySecs(), c.loss(), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        final Soak.Result r = new Soak(c, Invariants.NextHops.MESH, System.out).run();
        for (final Invariants.Violation v : r.violations().subList(0, Math.min(50, r.violations().size()))) {
            System.out.println("# violation " + v);
        }
        System.out.println("# max table sizes: " + r.maxSizes());
        System.out.println(r.summary());
        System.exit(r.violationCount() == 0 ? 0 : 1);
    }

    static String usage() {
        return String.join("\n",
                "Usage: fips-sim [--nodes N] [--degree D] [--seed S] [--scenario converge|churn|partition]",
                "                [--lookups M] [--latency-ms MIN[:MAX]] [--loss P] [--limit-s T]",
                "                [--log-level L] [-v]",
                "Runs N simulated FIPS nodes (real spanning-tree, bloom, discovery and next-hop code) on a virtual",
                "clock and prints one summary line last:",
                "  sim: nodes=N links=L converged_sim_s=X wall_s=Y lookups_ok=K/M mean_stretch=Z",
                "Options:",
                "  --nodes N         nodes (default 100)",
                "  --degree D        average degree of the random connected graph (default 4)",
                "  --seed S          seed of everything random (default 1)",
                "  --scenario NAME   converge (default), churn or partition",
                "  --lookups M       random pairs discovered and routed at the end (default min(100, N))",
                "  --latency-ms A:B  per-link one-way latency drawn in [A, B] ms (default 5:20)",
                "  --loss P          probability that a link message is lost (default 0)",
                "  --limit-s T       give up converging after T simulated seconds (default 300)",
                "  --log-level L     node log level: error, warn (default), info, debug, trace",
                "  -v, --verbose     progress lines (starting with #) before the summary",
                "Exit status: 0 converged and all lookups delivered, 1 otherwise, 2 bad arguments.",
                "fips-sim soak --help: the long run under churn with invariant checks.");
    }

    static Args parse(final String[] argv) {
        int nodes = 100;
        double degree = 4;
        long seed = 1;
        String scenario = "converge";
        int lookups = -1;
        long latMin = 5;
        long latMax = 20;
        double loss = 0;
        int limit = 300;
        boolean verbose = false;
        Level level = Level.WARNING;
        for (int i = 0; i < argv.length; i++) {
            final String opt = argv[i];
            switch (opt) {
                case "-h", "--help" -> {
                    return null;
                }
                case "-v", "--verbose" -> verbose = true;
                default -> {
                    if (i + 1 >= argv.length) {
                        throw new IllegalArgumentException("unknown option or missing value: " + opt);
                    }
                    final String v = argv[++i];
                    try {
                        switch (opt) {
                            case "--nodes" -> nodes = Integer.parseInt(v);
                            case "--degree" -> degree = Double.parseDouble(v);
                            case "--seed" -> seed = Long.parseLong(v);
                            case "--scenario" -> scenario = v;
                            case "--lookups" -> lookups = Integer.parseInt(v);
                            case "--latency-ms" -> {
                                final String[] p = v.split(":", 2);
                                latMin = Long.parseLong(p[0]);
                                latMax = p.length > 1 ? Long.parseLong(p[1]) : latMin;
                            }
                            case "--loss" -> loss = Double.parseDouble(v);
                            case "--limit-s" -> limit = Integer.parseInt(v);
                            case "--log-level" -> level = switch (v.toLowerCase(Locale.ROOT)) {
                                case "error" -> Level.SEVERE;
                                case "warn", "warning" -> Level.WARNING;
                                case "info" -> Level.INFO;
                                case "debug" -> Level.FINE;
                                case "trace" -> Level.FINEST;
                                default -> throw new IllegalArgumentException(
                                        "--log-level must be error, warn, info, debug or trace");
                            };
                            default -> throw new IllegalArgumentException("unknown option: " + opt);
                        }
                    } catch (final NumberFormatException e) {
                        throw new IllegalArgumentException("bad value for " + opt + ": " + v);
                    }
                }
            }
        }
        if (nodes < 2) {
            throw new IllegalArgumentException("--nodes must be at least 2");
        }
        if (degree < 1 || degree > nodes - 1) {
            throw new IllegalArgumentException("--degree must be in [1, nodes-1]");
        }
        if (!List.of("converge", "churn", "partition").contains(scenario)) {
            throw new IllegalArgumentException("--scenario must be converge, churn or partition");
        }
        if (latMin < 0 || latMax < latMin) {
            throw new IllegalArgumentException("--latency-ms needs 0 <= MIN <= MAX");
        }
        if (loss < 0 || loss >= 1) {
            throw new IllegalArgumentException("--loss must be in [0, 1)");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("--limit-s must be positive");
        }
        if (lookups < 0) {
            lookups = Math.min(100, nodes);
        }
        return new Args(nodes, degree, seed, scenario, lookups, latMin, latMax, loss, limit, verbose, level);
    }

    /** What a run measured. {@code convergedSimSeconds} is NaN when it did not converge. */
    record Result(int nodes, int links, double convergedSimSeconds, double wallSeconds, int lookupsOk,
                  int lookups, double meanStretch, String failure) {
        boolean ok() {
            return !Double.isNaN(convergedSimSeconds) && lookupsOk == lookups;
        }

        String summary() {
            return String.format(Locale.ROOT, "sim: nodes=%d links=%d converged_sim_s=%s wall_s=%.1f lookups_ok=%d/%d"
                            + " mean_stretch=%s", nodes, links,
                    Double.isNaN(convergedSimSeconds) ? "none"
                            : String.format(Locale.ROOT, "%.1f", convergedSimSeconds),
                    wallSeconds, lookupsOk, lookups,
                    Double.isNaN(meanStretch) ? "none" : String.format(Locale.ROOT, "%.3f", meanStretch));
        }
    }

    static Result run(final Args a, final PrintStream progress) {
        final long wallStart = System.nanoTime();
        final Random topo = new Random(a.seed() ^ 0x5DEECE66DL);
        final Topology t = Topology.randomWithDegree(a.nodes(), a.degree(), topo);
        final Simulator.Config cfg = new Simulator.Config(a.seed(), a.latencyMinMs() * Simulator.MS,
                a.latencyMaxMs() * Simulator.MS, a.loss(), true);
        final Simulator sim = new Simulator(t, cfg, MeshSettings.defaults());
        final long limit = a.limitSimSeconds() * Simulator.SECOND;
        final long step = 100 * Simulator.MS;
        log(progress, "built %d nodes, %d links (seed %d)", a.nodes(), t.edges().size(), a.seed());
        sim.linkAll();
        long converged = sim.runUntilConverged(limit, step);
        log(progress, "initial convergence: %s", seconds(converged));
        if (converged >= 0) {
            switch (a.scenario()) {
                case "churn" -> converged = churn(sim, t, limit, step, progress);
                case "partition" -> converged = partition(sim, t, limit, step, progress);
                default -> {
                }
            }
        }
        int ok = 0;
        double stretchSum = 0;
        int routed = 0;
        final List<int[]> pairs = sim.randomPairs(a.lookups());
        if (converged >= 0 && !pairs.isEmpty()) {
            final List<Simulator.Route> routes = sim.lookupAndRoute(pairs, 20 * Simulator.SECOND);
            for (final Simulator.Route r : routes) {
                if (r.ok()) {
                    ok++;
                    if (r.shortest() > 0) {
                        stretchSum += (double) r.hops() / r.shortest();
                        routed++;
                    }
                } else {
                    log(progress, "lookup %d -> %d failed: %s", r.src(), r.dst(), r.failure());
                }
            }
        }
        final double wall = (System.nanoTime() - wallStart) / 1e9;
        log(progress, "messages %d, verifications %d (memo hits %d), events %d", sim.messagesSent(),
                sim.signatures().verifications(), sim.signatures().memoHits(), sim.loop().executed());
        return new Result(a.nodes(), t.edges().size(), converged < 0 ? Double.NaN : converged / 1e9, wall, ok,
                pairs.size(), routed == 0 ? Double.NaN : stretchSum / routed, null);
    }

    /** A tenth of the nodes (at least one) lose every link; re-converge; they come back; re-converge. */
    private static long churn(final Simulator sim, final Topology t, final long limit, final long step,
                              final PrintStream progress) {
        final int[] order = sim.shuffled();
        final int k = Math.max(1, sim.nodes().size() / 10);
        final List<int[]> cut = new ArrayList<>();
        final boolean[] down = new boolean[sim.nodes().size()];
        for (int i = 0; i < k; i++) {
            down[order[i]] = true;
        }
        for (final int[] e : t.edges()) {
            if (down[e[0]] || down[e[1]]) {
                cut.add(e);
                sim.linkDown(e[0], e[1]);
            }
        }
        final long afterLoss = sim.runUntilConverged(limit, step);
        log(progress, "churn: %d nodes lost %d links, re-converged: %s", k, cut.size(), seconds(afterLoss));
        if (afterLoss < 0) {
            return -1;
        }
        for (final int[] e : cut) {
            sim.linkUp(e[0], e[1]);
        }
        final long afterReturn = sim.runUntilConverged(limit, step);
        log(progress, "churn: links back, re-converged: %s", seconds(afterReturn));
        return afterReturn;
    }

    /**
     * Every link between the breadth-first half around node 0 (connected) and the other nodes goes down; each
     * resulting component (the far side may fall apart) converges alone; then the cut heals.
     */
    private static long partition(final Simulator sim, final Topology t, final long limit, final long step,
                                  final PrintStream progress) {
        final int n = sim.nodes().size();
        final int[] hops = Topology.hops(t.adjacency(), 0);
        final Integer[] byDist = new Integer[n];
        for (int i = 0; i < n; i++) {
            byDist[i] = i;
        }
        Arrays.sort(byDist, (x, y) -> Integer.compare(hops[x], hops[y]));
        final boolean[] left = new boolean[n];
        for (int i = 0; i < n / 2; i++) {
            left[byDist[i]] = true;
        }
        final List<int[]> cut = new ArrayList<>();
        for (final int[] e : t.edges()) {
            if (left[e[0]] != left[e[1]]) {
                cut.add(e);
                sim.linkDown(e[0], e[1]);
            }
        }
        final long split = sim.runUntilConverged(limit, step);
        log(progress, "partition: cut %d links into %d components, converged: %s", cut.size(),
                Arrays.stream(sim.liveComponents()).distinct().count(), seconds(split));
        if (split < 0) {
            return -1;
        }
        for (final int[] e : cut) {
            sim.linkUp(e[0], e[1]);
        }
        final long healed = sim.runUntilConverged(limit, step);
        log(progress, "partition: healed, converged: %s", seconds(healed));
        return healed;
    }

    private static String seconds(final long nanos) {
        return nanos < 0 ? "no" : String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    private static void log(final PrintStream out, final String fmt, final Object... args) {
        if (out != null) {
            out.println("# " + String.format(Locale.ROOT, fmt, args));
        }
    }
}
