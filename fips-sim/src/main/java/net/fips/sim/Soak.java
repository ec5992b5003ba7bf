package net.fips.sim;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

import net.fips.control.mesh.MeshSettings;
import net.fips.dataplane.wire.Coords;

/**
 * The simulator soak (issue 18 §5): a random mesh runs for hours of virtual time under churn while invariants are
 * checked throughout.
 *
 * <p>Time is cut into cycles ({@link Config#cycleSecs}). In the first part of a cycle churn events arrive at random
 * (exponential gaps, {@link Config#eventsPerHour} on average): a node joins (an absent one, with empty state),
 * leaves (all its links down; never below a tenth of the nodes under the initial share), restarts (same identity,
 * empty state, links back after 2-10 s), or the mesh is partitioned (the breadth-first half of the present nodes
 * around a random one is cut from the rest) and healed 2-10 minutes later. The last {@link Config#quietSecs} of a
 * cycle are quiet: any cut heals, restarted nodes come back, and once the mesh has
 * {@linkplain Simulator#converged() converged} (within {@link Config#reconvergeLimitSecs}) every present node must
 * reach its sampled destinations (walks, {@link Invariants#walks}) and sampled lookups with fresh discovery must all
 * deliver ({@link Simulator#lookupAndRoute}; a route that fails on the way is discovered once more, as the source
 * does after a PathBroken). Every {@link Config#checkEverySecs}, in both parts,
 * the walk check (no loops, no dead next hops) and {@link Invariants#bounds} run.
 *
 * <p>With {@link Config#heapEverySecs} &gt; 0 the used heap after a full collection is measured at that virtual
 * interval (a wall-clock figure, for the long run's report; the CI test does not take it).
 */
public final class Soak {
    /**
     * Knobs of one soak.
     *
     * @param nodes               nodes in all, present or not
     * @param degree              average degree of the random connected topology
     * @param seed                seed of the topology, identities and churn
     * @param seconds             virtual duration
     * @param initialPresent      share of the nodes present at the start (the others can join later)
     * @param eventsPerHour       mean churn events per virtual hour of churn
     * @param cycleSecs           length of a cycle (churn, then quiet)
     * @param quietSecs           the quiet part at the end of each cycle
     * @param checkEverySecs      interval of the loop and bound checks
     * @param walksPerNode        sampled destinations per node and check
     * @param lookups             sampled lookups (fresh discovery) after each reconvergence
     * @param reconvergeLimitSecs how long after the last churn event the mesh may take to converge
     * @param heapEverySecs       virtual interval of the heap figures, 0 for none
     * @param loss                probability that a link message is lost
     */
    public record Config(int nodes, double degree, long seed, long seconds, double initialPresent,
                         double eventsPerHour, long cycleSecs, long quietSecs, long checkEverySecs, int walksPerNode,
                         int lookups, long reconvergeLimitSecs, long heapEverySecs, double loss) {
        /**
         * @param nodes   nodes in all (present or not)
         * @param seconds virtual duration in seconds
         * @param seed    seed of everything random
         * @return a soak with the default churn: 90 % present at the start, 60 events per hour, 20-minute cycles
         *     with 5 quiet minutes, checks every 30 s, 2 walks per node per check, 50 lookups after each
         *     reconvergence, 10 minutes to reconverge, no heap figures
         */
        public static Config defaults(final int nodes, final long seconds, final long seed) {
            return new Config(nodes, 4, seed, seconds, 0.9, 60, 1200, 300, 30, 2, 50, 600, 0, 0);
        }

        /** @return this with heap figures every {@code secs} of virtual time (0: none) */
        public Config withHeapEvery(final long secs) {
            return new Config(nodes, degree, seed, seconds, initialPresent, eventsPerHour, cycleSecs, quietSecs,
                    checkEverySecs, walksPerNode, lookups, reconvergeLimitSecs, secs, loss);
        }
    }

    /** Event counts, check counts and what broke. */
    public static final class Result {
        long joins;
        long leaves;
        long restarts;
        long partitions;
        long checks;
        long reconvergences;
        long reachWalksOk;
        long reachWalks;
        long lookupsOk;
        long lookups;
        /** Lookups whose first route failed on the way and were discovered again, as after a PathBroken. */
        long rediscoveries;
        /** Of those, the ones whose source held coordinates other than the target's current ones. */
        long rediscoveriesStale;
        double maxReconvergeSecs;
        final Invariants.WalkTally walks = new Invariants.WalkTally();
        final Invariants.Sizes[] maxSizes = {Invariants.Sizes.ZERO};
        /** The first {@link #KEPT} violations; {@link #violationCount} counts them all. */
        final List<Invariants.Violation> violations = new ArrayList<>();
        long violationCount;
        /** Used heap after a full collection (MiB) at each heap point, or empty when not measured. */
        final List<Double> heapMib = new ArrayList<>();
        double wallSeconds;

        /** How many violations are kept for the report (a broken invariant tends to break at every check). */
        static final int KEPT = 1000;

        void add(final List<Invariants.Violation> found) {
            violationCount += found.size();
            for (final Invariants.Violation v : found) {
                if (violations.size() < KEPT) {
                    violations.add(v);
                }
            }
        }

        /** @return the first {@value #KEPT} broken invariants, in order */
        public List<Invariants.Violation> violations() {
            return violations;
        }

        /** @return how many invariants broke, in all */
        public long violationCount() {
            return violationCount;
        }

        /** @return the walk outcomes of the periodic checks */
        public Invariants.WalkTally walks() {
            return walks;
        }

        /** @return the largest table sizes seen */
        public Invariants.Sizes maxSizes() {
            return maxSizes[0];
        }

        /** @return reconvergence windows that ended converged */
        public long reconvergences() {
            return reconvergences;
        }

        /** @return joins, leaves, restarts and partitions */
        public long events() {
            return joins + leaves + restarts + partitions;
        }

        /** @return one line: events, checks, reachability, sizes, heap, violations */
        public String summary() {
            final StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                    "soak: events=%d (joins %d, leaves %d, restarts %d, partitions %d) checks=%d walks=%d"
                            + " (delivered %d, no_route %d, stale_loops %d, loops %d, dead_next_hops %d)"
                            + " reconverged=%d max_s=%.1f"
                            + " reach_walks=%d/%d lookups=%d/%d (rediscovered %d, stale %d) violations=%d wall_s=%.1f",
                    events(), joins, leaves, restarts, partitions, checks, walks.total(),
                    walks.count(Invariants.Outcome.DELIVERED), walks.count(Invariants.Outcome.NO_ROUTE),
                    walks.count(Invariants.Outcome.STALE_LOOP), walks.count(Invariants.Outcome.LOOP),
                    walks.count(Invariants.Outcome.DEAD_NEXT_HOP),
                    reconvergences, maxReconvergeSecs, reachWalksOk, reachWalks, lookupsOk, lookups, rediscoveries,
                    rediscoveriesStale,
                    violationCount, wallSeconds));
            if (!heapMib.isEmpty()) {
                b.append(String.format(Locale.ROOT, " heap_after_gc_mib first=%.1f last=%.1f max=%.1f",
                        heapMib.getFirst(), heapMib.getLast(),
                        heapMib.stream().mapToDouble(Double::doubleValue).max().orElse(0)));
            }
            return b.toString();
        }
    }

    private static final long S = Simulator.SECOND;

    private final Config config;
    private final Simulator sim;
    private final Invariants.NextHops hops;
    private final PrintStream progress;
    private final Random random;
    private final Result result = new Result();
    /** When the current partition heals (virtual nanos), or -1 when none. */
    private long healAt = -1;
    private long nextCheck;
    private long nextHeap;

    /**
     * @param config   the knobs
     * @param hops     the next-hop decision the walks follow ({@link Invariants.NextHops#MESH} but in tests)
     * @param progress progress lines (starting with #), or null
     */
    public Soak(final Config config, final Invariants.NextHops hops, final PrintStream progress) {
        this.config = config;
        this.hops = hops;
        this.progress = progress;
        final Random topo = new Random(config.seed() ^ 0x5DEECE66DL);
        final Topology t = Topology.randomWithDegree(config.nodes(), config.degree(), topo);
        this.sim = new Simulator(t, new Simulator.Config(config.seed(), 5 * Simulator.MS, 20 * Simulator.MS,
                config.loss(), true), MeshSettings.defaults());
        this.random = new Random(config.seed() * 31 + 7);
        final int absent = config.nodes() - (int) Math.round(config.nodes() * config.initialPresent());
        final int[] order = sim.shuffled();
        for (int i = 0; i < absent; i++) {
            sim.leave(order[i]);
        }
    }

    /** @return the simulator (tests reach in to break things) */
    public Simulator simulator() {
        return sim;
    }

    /**
     * Runs the soak: initial convergence, then the cycles up to the configured duration.
     *
     * @return what happened; {@link Result#violations()} is empty when every invariant held
     */
    public Result run() {
        final long wallStart = System.nanoTime();
        sim.linkAll();
        final long end = config.seconds() * S;
        log("built %d nodes (%d present), %d links, seed %d", config.nodes(), present().size(),
                sim.topology.edges().size(), config.seed());
        nextCheck = config.checkEverySecs() * S;
        nextHeap = 0;
        heapPoint();
        quiet(sim.loop().now());
        while (sim.loop().now() < end) {
            final long cycleStart = sim.loop().now();
            final long churnEnd = Math.min(end, cycleStart + (config.cycleSecs() - config.quietSecs()) * S);
            churn(churnEnd);
            if (sim.loop().now() >= end) {
                break;
            }
            quiet(Math.min(end, cycleStart + config.cycleSecs() * S));
        }
        result.wallSeconds = (System.nanoTime() - wallStart) / 1e9;
        return result;
    }

    /** Churn events at random until {@code until}, checking on schedule. */
    private void churn(final long until) {
        long nextEvent = sim.loop().now() + gap();
        while (sim.loop().now() < until) {
            final long next = Math.min(Math.min(nextEvent, nextCheck), Math.min(until, healAt < 0 ? until : healAt));
            advanceTo(next);
            if (healAt >= 0 && sim.loop().now() >= healAt) {
                sim.heal();
                healAt = -1;
            }
            if (sim.loop().now() >= nextEvent && sim.loop().now() < until) {
                event();
                nextEvent = sim.loop().now() + gap();
            }
        }
    }

    /**
     * Runs the clock to {@code t}, running the periodic checks (and heap points) that fall due on the way. A check
     * the clock has passed runs first: the reachability phase runs the clock itself (up to 20 s per discovery round),
     * and a check left behind it once made the churn loop spin without advancing (caught by a run with loss).
     */
    private void advanceTo(final long t) {
        final long interval = config.checkEverySecs() * S;
        while (sim.loop().now() < t || sim.loop().now() >= nextCheck) {
            if (sim.loop().now() >= nextCheck) {
                check();
                nextCheck += interval;
                if (nextCheck <= sim.loop().now()) {
                    nextCheck = sim.loop().now() + interval;
                }
                continue;
            }
            sim.run(Math.min(t, nextCheck) - sim.loop().now());
        }
    }

    private void check() {
        result.checks++;
        result.add(Invariants.walks(sim, hops, config.walksPerNode(), result.walks, null));
        result.add(Invariants.bounds(sim, result.maxSizes));
        if (config.heapEverySecs() > 0 && sim.loop().now() >= nextHeap) {
            heapPoint();
        }
    }

    private void heapPoint() {
        if (config.heapEverySecs() <= 0) {
            return;
        }
        System.gc();
        final Runtime rt = Runtime.getRuntime();
        final double mib = (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
        result.heapMib.add(mib);
        log("t=%s heap_after_gc_mib=%.1f present=%d sizes_max{%s} sim{signature_memo=%d events_queued=%d}"
                        + " violations=%d", hms(sim.loop().now()), mib, present().size(), result.maxSizes[0],
                sim.signatures().memoSize(), sim.loop().pending(), result.violationCount);
        nextHeap = sim.loop().now() + config.heapEverySecs() * S;
    }

    /** Quiet part of a cycle: heal, let restarted nodes come back, reconverge, check reachability, idle. */
    private void quiet(final long until) {
        if (healAt >= 0 || sim.partitioned()) {
            sim.heal();
            healAt = -1;
        }
        // A restarted node's links come back within 10 s: the churn ends there.
        advanceTo(sim.loop().now() + 10 * S);
        final long lastChurn = sim.loop().now();
        final long limit = lastChurn + config.reconvergeLimitSecs() * S;
        long firstSeen = -1;
        while (sim.loop().now() < limit) {
            final long filters = sim.filterAnnouncesSent();
            advanceTo(sim.loop().now() + S);
            if (sim.converged() && sim.filterAnnouncesSent() == filters) {
                firstSeen = sim.loop().now();
                break;
            }
        }
        if (firstSeen < 0) {
            result.add(List.of(new Invariants.Violation(sim.loop().now(), "no-reconvergence",
                    "not converged " + config.reconvergeLimitSecs() + " s after the last churn event")));
            log("t=%s did not reconverge", hms(sim.loop().now()));
        } else {
            result.reconvergences++;
            final double secs = (firstSeen - lastChurn) / 1e9;
            result.maxReconvergeSecs = Math.max(result.maxReconvergeSecs, secs);
            reachability(secs);
        }
        advanceTo(Math.max(until, sim.loop().now()));
    }

    /** Every present node reaches its sampled destinations; sampled lookups with fresh discovery all deliver. */
    private void reachability(final double reconvergedSecs) {
        final List<Invariants.Violation> undelivered = new ArrayList<>();
        final Invariants.WalkTally tally = new Invariants.WalkTally();
        result.add(Invariants.walks(sim, hops, config.walksPerNode(), tally, undelivered));
        result.add(undelivered);
        result.reachWalks += tally.total();
        result.reachWalksOk += tally.count(Invariants.Outcome.DELIVERED);
        final List<int[]> pairs = sim.randomPairs(config.lookups());
        // The sources forget what they cached for the targets, so each lookup is a fresh discovery.
        for (final int[] p : pairs) {
            sim.nodes().get(p[0]).mesh().forgetCoords(sim.nodes().get(p[1]).addr(), sim.loop().now());
        }
        int ok = 0;
        final List<int[]> retry = new ArrayList<>();
        int stale = 0;
        for (final Simulator.Route r : sim.lookupAndRoute(pairs, 20 * S)) {
            if (r.ok()) {
                ok++;
                continue;
            }
            // A route that fails on the way is what a transit answers with PathBroken (routing-session §5.5): the
            // source drops the coordinates and discovers again. The tree may still improve after the convergence
            // predicate holds (periodic re-evaluation once hold-down and flap dampening let a node switch to a
            // better parent), so coordinates discovered in this window can be out of date a few seconds later.
            final Simulator.Node s = sim.nodes().get(r.src());
            final Simulator.Node d = sim.nodes().get(r.dst());
            final Coords had = s.mesh().cachedCoords(d.addr(), sim.loop().now());
            if (had != null && !had.equals(d.mesh().coords())) {
                stale++;
            }
            s.mesh().forgetCoords(d.addr(), sim.loop().now());
            retry.add(new int[] {r.src(), r.dst()});
        }
        if (!retry.isEmpty()) {
            for (final Simulator.Route r : sim.lookupAndRoute(retry, 20 * S)) {
                if (r.ok()) {
                    ok++;
                } else {
                    result.add(List.of(new Invariants.Violation(sim.loop().now(), "lookup",
                            r.src() + " -> " + r.dst() + ": " + r.failure() + " (also after rediscovery)")));
                }
            }
        }
        result.lookups += pairs.size();
        result.lookupsOk += ok;
        result.rediscoveries += retry.size();
        result.rediscoveriesStale += stale;
        final int[] comp = sim.liveComponents();
        final Set<Integer> comps = new HashSet<>();
        for (final int i : present()) {
            comps.add(comp[i]);
        }
        log("t=%s converged %.1f s after the churn ended (+10 s for restarts): present=%d components=%d"
                        + " reach_walks=%d/%d lookups=%d/%d (rediscovered %d, of them with out-of-date coordinates"
                        + " %d) violations=%d",
                hms(sim.loop().now()), reconvergedSecs, present().size(), comps.size(),
                tally.count(Invariants.Outcome.DELIVERED), tally.total(), ok, pairs.size(), retry.size(), stale,
                result.violationCount);
    }

    /** One random churn event. */
    private void event() {
        final List<Integer> present = present();
        final List<Integer> absent = new ArrayList<>();
        for (final Simulator.Node n : sim.nodes()) {
            if (!n.present()) {
                absent.add(n.index());
            }
        }
        final double r = random.nextDouble();
        if (r < 0.3 && !absent.isEmpty()) {
            sim.join(absent.get(random.nextInt(absent.size())));
            result.joins++;
        } else if (r < 0.6 && present.size() > Math.round(config.nodes() * (config.initialPresent() - 0.1))) {
            sim.leave(present.get(random.nextInt(present.size())));
            result.leaves++;
        } else if (r < 0.85 || healAt >= 0) {
            sim.restart(present.get(random.nextInt(present.size())), (2 + random.nextInt(9)) * S);
            result.restarts++;
        } else {
            final int center = present.get(random.nextInt(present.size()));
            sim.partition(half(center, present));
            healAt = sim.loop().now() + (120 + random.nextInt(481)) * S;
            result.partitions++;
        }
    }

    /** The breadth-first half of the present nodes around {@code center}, over the topology. */
    private Set<Integer> half(final int center, final List<Integer> present) {
        final int[][] adj = sim.topology.adjacency();
        final Set<Integer> side = new HashSet<>();
        final ArrayDeque<Integer> queue = new ArrayDeque<>();
        side.add(center);
        queue.add(center);
        while (!queue.isEmpty() && side.size() < present.size() / 2) {
            final int at = queue.poll();
            for (final int nb : adj[at]) {
                if (sim.nodes().get(nb).present() && side.add(nb)) {
                    queue.add(nb);
                    if (side.size() >= present.size() / 2) {
                        break;
                    }
                }
            }
        }
        return side;
    }

    private long gap() {
        final double mean = 3600.0 / config.eventsPerHour();
        return Math.max(1, (long) (-Math.log(1 - random.nextDouble()) * mean * S));
    }

    private List<Integer> present() {
        final List<Integer> out = new ArrayList<>();
        for (final Simulator.Node n : sim.nodes()) {
            if (n.present()) {
                out.add(n.index());
            }
        }
        return out;
    }

    private static String hms(final long nanos) {
        final long s = nanos / S;
        return String.format(Locale.ROOT, "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }

    private void log(final String fmt, final Object... args) {
        if (progress != null) {
            progress.println("# " + String.format(Locale.ROOT, fmt, args));
            progress.flush();
        }
    }
}
