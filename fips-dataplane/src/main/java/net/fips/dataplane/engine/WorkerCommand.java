package net.fips.dataplane.engine;

import net.fips.dataplane.wire.NodeAddr;

/**
 * A control-thread request to one worker ({@link WorkerAgent#enqueue}), applied by that worker in call order
 * ({@link WorkerCommands}): the link commands go to the link's worker, the session commands to the session's.
 */
sealed interface WorkerCommand {
    /** @param held frames that arrived for the link's index before it was installed ({@link LinkFrameHold}) */
    record AddLink(Link link, int[] held) implements WorkerCommand {
    }

    /** @param held frames that arrived for the pending index before it was installed */
    record InstallPending(long linkId, int transportId, LinkSession session, int[] held) implements WorkerCommand {
    }

    /** Cutover of the link's pending session (crypto-link.md §5.11). */
    record Cutover(long linkId, long sessionStartNanos) implements WorkerCommand {
    }

    /** The link's previous session stops receiving. */
    record DropPrevious(long linkId) implements WorkerCommand {
    }

    /** The link goes; its indices are unregistered and its keys wiped. */
    record RemoveLink(long linkId) implements WorkerCommand {
    }

    /** A link message (not a SessionDatagram) to seal and send on the link. */
    record SendLinkMessage(long linkId, byte[] message) implements WorkerCommand {
    }

    /** Marks the link congested (ECN on transit, §6.6) or not. */
    record SetCongested(long linkId, boolean congested) implements WorkerCommand {
    }

    /** An established end-to-end session. */
    record AddSession(FspSession session) implements WorkerCommand {
    }

    /** New keys of a session's rekey, pending until cutover. */
    record InstallSessionPending(NodeAddr remote, byte[] sendKey, byte[] recvKey) implements WorkerCommand {
    }

    /** Cutover of the session's pending keys. */
    record CutoverSession(NodeAddr remote, long sessionStartNanos) implements WorkerCommand {
    }

    /** The session's previous keys stop receiving. */
    record DropSessionPrevious(NodeAddr remote) implements WorkerCommand {
    }

    /** The session goes; its keys are wiped. */
    record RemoveSession(NodeAddr remote) implements WorkerCommand {
    }

    /** CP coordinates to piggy-back on the session's next {@code packets} data packets. */
    record SetSessionWarmup(NodeAddr remote, int packets) implements WorkerCommand {
    }

    /** A smaller path MTU learnt for the session. */
    record LowerSessionPathMtu(NodeAddr remote, int pathMtu) implements WorkerCommand {
    }

    /** A session-layer message the control plane built, sealed and routed here. */
    record SendSessionMessage(NodeAddr remote, int msgType, byte[] body, boolean withCoords)
            implements WorkerCommand {
    }

    /** An IPv6 packet to send through the session path as if read from TUN. */
    record SendIpv6(byte[] packet) implements WorkerCommand {
    }

    /** An IPv6 packet (an ICMPv6 error the control plane built) to write to the IPv6 sink as is. */
    record WriteIpv6(byte[] packet) implements WorkerCommand {
    }
}
