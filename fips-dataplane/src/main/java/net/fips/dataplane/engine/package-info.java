/**
 * The FMP data-plane engine: {@link net.fips.dataplane.engine.DataPlane} and its settings.
 *
 * <h2>Agents and ownership</h2>
 * Three kinds of loop, each an agent with a {@code doWork()} that returns a work count: a receive agent per
 * transport ({@code fips-rx-N}, and {@code fips-tun-rx} for the TUN device), AEAD workers ({@code fips-worker-N})
 * and a transmit agent per transport ({@code fips-tx-N}); {@link net.fips.dataplane.engine.ThreadingMode} packs
 * them onto threads (one each, one for all, or the caller's). A packet is a slot of the shared off-heap pool; a slot
 * has exactly one owner and changes hands only through a ring (SPSC between agents, MPSC from local senders), whose
 * release/acquire pair makes the packet bytes and the per-slot metadata ({@code SlotMeta}, kept in the slot's headroom)
 * visible to the next owner.
 *
 * <h2>Single writer per link</h2>
 * A link is pinned to worker {@code linkId mod workerCount}. That worker is the only thread that reads or writes
 * the link's sessions, keys, replay windows, counters, K bit and address, so none of them need locks, and a link's
 * frames are opened and sealed in order. The control thread changes link state only through commands that the
 * worker applies in call order. Published statistics ({@link net.fips.dataplane.LinkStats}) are written with
 * opaque stores: never torn, possibly a moment old.
 *
 * <h2>The worker</h2>
 * {@code WorkerAgent} is the owner loop: it drains its rings and command queue, moves each slot to its next owner
 * and counts the drops. The work on a packet is done by helpers that return what happened instead of calling back:
 * {@code LinkCrypto} (open with the K-bit trial and cutover, seal, key lifecycle), {@code Transit} (the transit
 * decision), {@code SessionPath} (the FSP half: it returns the next hop of a sealed datagram and queues the
 * messages it originates in a {@code SessionOutbox}) and {@code WorkerCommands} (command application).
 *
 * <h2>Dispatch table</h2>
 * {@code (transportId, receiver_idx) -> linkId} is an immutable primitive map, replaced copy-on-write: the control
 * thread adds an index (after queueing the command that tells the worker about it), the worker removes one when a
 * session ends. The receive agents read it with one acquire load per frame.
 *
 * <h2>Transit</h2>
 * With a {@link net.fips.dataplane.route.ForwardingTable} installed ({@code setForwardingTable}; one acquire load
 * per datagram), the worker that opened a SessionDatagram routes it ({@link net.fips.dataplane.route.NextHop}),
 * rewrites ttl and path_mtu in place and re-seals it in the same slot for the outbound link, carrying the CE flag
 * over. When that link is pinned to another worker the slot crosses one SPSC ring per ordered pair of workers,
 * so each flow keeps its order. Coordinates carried by SessionSetup, SessionAck and CP messages, and routing
 * failures (rate-limited per destination), go to the control plane as
 * {@link net.fips.dataplane.DataPlaneEvent.RoutingEvent}s.
 *
 * <h2>Idling</h2>
 * An idle node uses no CPU. The receive threads block in the kernel (poll). Worker and tx threads back off
 * ({@link net.fips.dataplane.agent.IdleStrategy}: spin, yield, short parks; the agent framework is in
 * {@code net.fips.dataplane.agent}), then park until a producer signals
 * them: a consumer announces that it is going to sleep, re-checks every queue it owns and parks; a producer
 * publishes its item and unparks the consumer only if it is announced, so a busy path pays a fence and a volatile
 * read per batch (per call for {@code sendDatagram}), not a system call per packet, and traffic with gaps shorter
 * than the back-off never pays for a wake-up. The park is bounded by
 * {@link net.fips.dataplane.engine.DataPlaneContext#idleParkBoundNs(long)}; busy spinning happens only with an
 * idle strategy configured to spin. In {@link net.fips.dataplane.engine.ThreadingMode#COMPACT} every agent runs on
 * one thread in run-to-completion cycles; the agents share one signal, and the thread sleeps in {@code poll} on the
 * receive descriptors and an eventfd that the signal writes, with the same announce, re-check, sleep hand-shake.
 *
 * <h2>Failures</h2>
 * Malformed, unknown, replayed or unauthenticated frames, full rings and an exhausted pool are counted
 * ({@link net.fips.dataplane.engine.DataPlaneCounter}) and dropped; nothing on the packet path throws, logs or
 * allocates (handshakes, link control messages and roaming allocate: they are rare and leave the data path).
 */
package net.fips.dataplane.engine;
