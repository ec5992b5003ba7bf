package net.fips.dataplane.udp;

/**
 * Counters of one UDP transport. Plain fields: the receive side is written only by the receiving thread and the
 * send side only by the sending thread; readers on other threads see eventually consistent, non-atomic snapshots,
 * which is all statistics need.
 */
public final class UdpCounters {
    long packetsIn;
    long bytesIn;
    long recvTruncated;
    long recvEagain;
    long recvErrors;
    long groTrains;
    long kernelDrops;
    long punchDropped;
    long packetsOut;
    long bytesOut;
    long sendEagain;
    long sendEnobufs;
    long sendErrors;
    long sendDrops;
    long gsoSends;
    long gsoPackets;
    long sendCalls;
    long gsoFallbacks;
    long mtuExceeded;

    UdpCounters() {
    }

    /** @return datagrams delivered to the caller (after splitting GRO trains) */
    public long packetsIn() {
        return packetsIn;
    }

    /** @return payload bytes delivered to the caller */
    public long bytesIn() {
        return bytesIn;
    }

    /** @return datagrams dropped because they did not fit the slot (MSG_TRUNC, or a GRO segment too big) */
    public long recvTruncated() {
        return recvTruncated;
    }

    /** @return receive attempts that found the socket empty */
    public long recvEagain() {
        return recvEagain;
    }

    /** @return other receive errors */
    public long recvErrors() {
        return recvErrors;
    }

    /** @return GRO super-packets (more than one segment) split into slots */
    public long groTrains() {
        return groTrains;
    }

    /** @return the kernel's cumulative receive-queue drop count (SO_RXQ_OVFL; the maximum seen) */
    public long kernelDrops() {
        return kernelDrops;
    }

    /**
     * @return datagrams dropped in the receive path because they start with a NAT-traversal punch magic
     *         ({@code NPTC}/{@code NPTA}, discovery-gateway.md §2.6); also counted in {@link #packetsIn()}
     */
    public long punchDropped() {
        return punchDropped;
    }

    /** @return datagrams the kernel accepted for sending (a GSO train counts its segments) */
    public long packetsOut() {
        return packetsOut;
    }

    /** @return payload bytes the kernel accepted for sending */
    public long bytesOut() {
        return bytesOut;
    }

    /** @return send attempts that met EAGAIN (full socket buffer) */
    public long sendEagain() {
        return sendEagain;
    }

    /** @return send attempts that met ENOBUFS/ENOMEM */
    public long sendEnobufs() {
        return sendEnobufs;
    }

    /** @return datagrams the kernel rejected with a hard error */
    public long sendErrors() {
        return sendErrors;
    }

    /**
     * @return datagrams given up on after back-pressure outlasted the send timeout, or offered to a vacant adoption
     *         slot
     */
    public long sendDrops() {
        return sendDrops;
    }

    /** @return GSO trains the kernel accepted (each one message of a sendmmsg or sendmsg call) */
    public long gsoSends() {
        return gsoSends;
    }

    /** @return system calls the batch send made (sendmmsg and sendmsg, whatever they answered) */
    public long sendCalls() {
        return sendCalls;
    }

    /** @return datagrams sent inside GSO trains */
    public long gsoPackets() {
        return gsoPackets;
    }

    /** @return GSO attempts that fell back to sendmmsg (refusal, EMSGSIZE, EIO) */
    public long gsoFallbacks() {
        return gsoFallbacks;
    }

    /** @return packets refused before sending because they exceeded the transport MTU */
    public long mtuExceeded() {
        return mtuExceeded;
    }

    @Override
    public String toString() {
        return "UdpCounters{in=" + packetsIn + "/" + bytesIn + "B, truncated=" + recvTruncated + ", recvEagain="
                + recvEagain + ", recvErrors=" + recvErrors + ", groTrains=" + groTrains + ", kernelDrops="
                + kernelDrops + ", out=" + packetsOut + "/" + bytesOut + "B, sendEagain=" + sendEagain
                + ", sendEnobufs=" + sendEnobufs + ", sendErrors=" + sendErrors + ", sendDrops=" + sendDrops
                + ", gsoSends=" + gsoSends + ", gsoPackets=" + gsoPackets + ", gsoFallbacks=" + gsoFallbacks
                + ", sendCalls=" + sendCalls
                + ", mtuExceeded=" + mtuExceeded + "}";
    }
}
