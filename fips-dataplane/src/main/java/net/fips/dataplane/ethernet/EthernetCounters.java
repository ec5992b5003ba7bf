package net.fips.dataplane.ethernet;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counters of one Ethernet transport. The first ten are the reference's {@code show_transports} names
 * (transports.md §1.8); unlike v0.4.1 we do bump {@code frames_too_short}/{@code frames_too_long} and
 * {@code mtu_exceeded}. Plain fields, each with one writing thread (receive side: the receiving thread; send side:
 * the sending thread; beacons: whoever sends them, serialised); readers see eventually consistent values.
 */
public final class EthernetCounters {
    long framesSent;
    long framesRecv;
    long bytesSent;
    long bytesRecv;
    long sendErrors;
    long recvErrors;
    long beaconsSent;
    long beaconsRecv;
    long framesTooShort;
    long framesTooLong;
    long mtuExceeded;
    long framesUnknownType;
    long framesOtherHost;
    long beaconsMalformed;
    long discoveryOverflow;
    long sendDrops;
    long beaconSendErrors;
    long reopens;

    EthernetCounters() {
    }

    /** @return data frames the kernel accepted */
    public long framesSent() {
        return framesSent;
    }

    /** @return data frames delivered to the caller */
    public long framesRecv() {
        return framesRecv;
    }

    /** @return FMP bytes sent (framing excluded) */
    public long bytesSent() {
        return bytesSent;
    }

    /** @return FMP bytes delivered (framing and padding excluded) */
    public long bytesRecv() {
        return bytesRecv;
    }

    /** @return data frames the kernel refused (EMSGSIZE, ENXIO, ENETDOWN, ...) */
    public long sendErrors() {
        return sendErrors;
    }

    /** @return failed receive calls (other than "nothing queued") */
    public long recvErrors() {
        return recvErrors;
    }

    /** @return beacons sent */
    public long beaconsSent() {
        return beaconsSent;
    }

    /** @return beacons received (well formed or not) */
    public long beaconsRecv() {
        return beaconsRecv;
    }

    /** @return frames dropped as too short: empty, a header cut off, or a length beyond the bytes received */
    public long framesTooShort() {
        return framesTooShort;
    }

    /** @return frames dropped because they did not fit the receive slot (MSG_TRUNC) */
    public long framesTooLong() {
        return framesTooLong;
    }

    /** @return packets refused before sending because they exceeded the MTU */
    public long mtuExceeded() {
        return mtuExceeded;
    }

    /** @return frames whose type byte is neither data nor beacon (ignored, as the reference does) */
    public long framesUnknownType() {
        return framesUnknownType;
    }

    /** @return frames for another host or our own outgoing ones (promiscuous interface), dropped */
    public long framesOtherHost() {
        return framesOtherHost;
    }

    /** @return beacons shorter than 34 bytes or of an unknown version */
    public long beaconsMalformed() {
        return beaconsMalformed;
    }

    /** @return beacons from a new MAC dropped because the discovery buffer was full */
    public long discoveryOverflow() {
        return discoveryOverflow;
    }

    /** @return data frames given up on after the send timeout (socket buffer full) */
    public long sendDrops() {
        return sendDrops;
    }

    /** @return beacon sends the kernel refused */
    public long beaconSendErrors() {
        return beaconSendErrors;
    }

    /** @return times the socket was closed and opened again (interface destroyed and recreated) */
    public long reopens() {
        return reopens;
    }

    /** @return the §1.8 names with their values, then ours, in a stable order */
    public Map<String, Long> snapshot() {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("frames_sent", framesSent);
        m.put("frames_recv", framesRecv);
        m.put("bytes_sent", bytesSent);
        m.put("bytes_recv", bytesRecv);
        m.put("send_errors", sendErrors);
        m.put("recv_errors", recvErrors);
        m.put("beacons_sent", beaconsSent);
        m.put("beacons_recv", beaconsRecv);
        m.put("frames_too_short", framesTooShort);
        m.put("frames_too_long", framesTooLong);
        m.put("mtu_exceeded", mtuExceeded);
        m.put("frames_unknown_type", framesUnknownType);
        m.put("frames_other_host", framesOtherHost);
        m.put("beacons_malformed", beaconsMalformed);
        m.put("discovery_overflow", discoveryOverflow);
        m.put("send_drops", sendDrops);
        m.put("beacon_send_errors", beaconSendErrors);
        m.put("reopens", reopens);
        return m;
    }

    @Override
    public String toString() {
        return "EthernetCounters" + snapshot();
    }
}
