package net.fips.control.node;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.FmpMsg1;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.LookupRequest;
import net.fips.dataplane.wire.LookupResponse;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.dataplane.wire.WireResult;

/**
 * A test-side FIPS link endpoint that is not our node: one IK initiator over a plain {@link DatagramChannel} on
 * loopback, with its own FMP framing, counters and replay check written from crypto-link.md §5. It only uses the
 * vector-verified Noise state and the wire codecs; what to send when is up to the test. Everything it receives from
 * the node is decoded and kept per message type; anything that breaks the spec is remembered as a problem.
 */
final class RawPeer implements AutoCloseable {
    private static final int HEADER = 16;
    private static final int TAG = 16;

    final NodeIdentity id;
    final String name;
    private final DatagramChannel ch;
    private final InetSocketAddress node;
    private final int ourIdx;
    private final Thread rx;
    private final byte[] epoch = new byte[8];

    private volatile HandshakeState handshake;
    private volatile byte[] nodeXOnly;
    private volatile byte[] sendKey;
    private volatile byte[] recvKey;
    private volatile int theirIdx;
    private long sendCounter;
    /** Receive-thread only: counters already accepted (the spec's replay rule, without the window). */
    private final Set<Long> seen = new HashSet<>();

    final List<TreeAnnounce> trees = new CopyOnWriteArrayList<>();
    final List<FilterAnnounce> filters = new CopyOnWriteArrayList<>();
    final List<LookupRequest> requests = new CopyOnWriteArrayList<>();
    final List<LookupResponse> responses = new CopyOnWriteArrayList<>();
    final List<SessionDatagram> datagrams = new CopyOnWriteArrayList<>();
    /** Receive time (System.nanoTime) of each entry of {@link #datagrams}. */
    final List<Long> datagramNanos = new CopyOnWriteArrayList<>();
    final AtomicLong heartbeats = new AtomicLong();
    final AtomicLong mmpReports = new AtomicLong();
    final AtomicLong framesIn = new AtomicLong();
    final AtomicReference<String> problem = new AtomicReference<>();

    /**
     * @param id   this peer's identity
     * @param name for messages
     * @param node the node's UDP address
     */
    RawPeer(final NodeIdentity id, final String name, final InetSocketAddress node) throws IOException {
        this.id = id;
        this.name = name;
        this.node = node;
        final SecureRandom r = new SecureRandom();
        r.nextBytes(epoch);
        this.ourIdx = r.nextInt();
        this.ch = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        this.rx = Thread.ofPlatform().daemon().name("raw-peer-" + name).start(this::receiveLoop);
    }

    /** Sends IK msg1 to the node (crypto-link §4.4, §5.3); {@link #established()} turns true on its msg2. */
    void dial(final NodeIdentity nodeId) throws NoiseException, IOException {
        final HandshakeState hs = HandshakeState.initiator(HandshakeState.Pattern.IK, id.secretKey(),
                nodeId.compressedPublicKey(), epoch);
        final byte[] msg1 = new FmpMsg1(ourIdx, hs.writeMessage1()).encode();
        nodeXOnly = nodeId.publicKey();
        handshake = hs;
        ch.send(ByteBuffer.wrap(msg1), node);
    }

    boolean established() {
        return recvKey != null;
    }

    /** Seals one link message (msg_type first) in an established frame and sends it. */
    synchronized void send(final byte[] message) throws IOException {
        final byte[] key = sendKey;
        if (key == null) {
            throw new IllegalStateException(name + ": link not established");
        }
        final int plainLen = 4 + message.length;
        final byte[] frame = new byte[HEADER + plainLen + TAG];
        final ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        final long counter = sendCounter++;
        b.put((byte) 0).put((byte) 0).putShort((short) plainLen).putInt(theirIdx).putLong(counter);
        b.putInt((int) counter);   // timestamp: the receiver does not validate it
        b.put(message);
        try {
            final Cipher c = Cipher.getInstance("ChaCha20-Poly1305");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce(counter)));
            c.updateAAD(frame, 0, HEADER);
            c.doFinal(frame, HEADER, plainLen, frame, HEADER);
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        ch.send(ByteBuffer.wrap(frame), node);
    }

    private static byte[] nonce(final long counter) {
        final byte[] n = new byte[12];
        ByteBuffer.wrap(n).order(ByteOrder.LITTLE_ENDIAN).putLong(4, counter);
        return n;
    }

    private void problem(final String what) {
        problem.compareAndSet(null, name + ": " + what);
    }

    private void receiveLoop() {
        final ByteBuffer buf = ByteBuffer.allocate(65_536);
        try {
            while (true) {
                buf.clear();
                ch.receive(buf);
                buf.flip();
                final byte[] p = new byte[buf.remaining()];
                buf.get(p);
                try {
                    onPacket(p);
                } catch (final RuntimeException e) {
                    problem("exception on a packet from the node: " + e);
                }
            }
        } catch (final ClosedChannelException e) {
            // closed by the test
        } catch (final IOException e) {
            problem("receive failed: " + e);
        }
    }

    private void onPacket(final byte[] p) throws IOException {
        if (p.length < 4 || (p[0] & 0xF0) != 0) {
            problem("packet with a bad prefix: " + Arrays.toString(Arrays.copyOf(p, Math.min(4, p.length))));
            return;
        }
        switch (p[0] & 0x0F) {
            case 2 -> onMsg2(p);
            case 0 -> onFrame(p);
            default -> problem("unexpected phase " + (p[0] & 0x0F));
        }
    }

    private void onMsg2(final byte[] p) {
        final HandshakeState hs = handshake;
        final WireResult<FmpMsg2> r = FmpMsg2.decode(p, 0, p.length);
        if (!(r instanceof WireResult.Ok<FmpMsg2>(final FmpMsg2 m2)) || hs == null || recvKey != null) {
            problem("unexpected or malformed msg2 (" + p.length + " bytes, " + r.errorOrNull() + ")");
            return;
        }
        if (m2.receiverIdx() != ourIdx) {
            problem("msg2 receiver_idx " + m2.receiverIdx() + " does not echo our sender_idx " + ourIdx);
            return;
        }
        try {
            hs.readMessage2(m2.noise());
            final HandshakeResult res = hs.finish();
            if (!Arrays.equals(Arrays.copyOfRange(res.remoteStatic(), 1, 33), nodeXOnly)
                    || res.remoteEpoch().length != 8) {
                problem("bad handshake result");
            }
            theirIdx = m2.senderIdx();
            sendKey = res.sendKey();
            recvKey = res.recvKey();
        } catch (final NoiseException e) {
            problem("msg2 did not decrypt: " + e);
        }
    }

    private void onFrame(final byte[] p) throws IOException {
        final byte[] key = recvKey;
        if (key == null) {
            problem("established frame before the handshake");
            return;
        }
        if (p.length < HEADER + TAG + 5) {
            problem("frame of " + p.length + " bytes");
            return;
        }
        final ByteBuffer h = ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN);
        final int flags = p[1] & 0xFF;
        final int payloadLen = h.getShort(2) & 0xFFFF;
        final int receiverIdx = h.getInt(4);
        final long counter = h.getLong(8);
        if (receiverIdx != ourIdx) {
            problem("frame receiver_idx " + receiverIdx + ", ours is " + ourIdx);
            return;
        }
        if (payloadLen != p.length - HEADER - TAG) {
            problem("payload_len " + payloadLen + " for a frame of " + p.length + " bytes");
        }
        if ((flags & ~0x07) != 0 || (flags & 0x01) != 0) {
            problem("unexpected flags " + flags + " (no rekey in this test)");
        }
        final byte[] plain;
        try {
            final Cipher c = Cipher.getInstance("ChaCha20-Poly1305");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce(counter)));
            c.updateAAD(p, 0, HEADER);
            plain = c.doFinal(p, HEADER, p.length - HEADER);
        } catch (final GeneralSecurityException e) {
            problem("frame counter " + counter + " did not authenticate: " + e);
            return;
        }
        if (!seen.add(counter)) {
            problem("counter " + counter + " replayed");
            return;
        }
        framesIn.incrementAndGet();
        final byte[] msg = Arrays.copyOfRange(plain, 4, plain.length);
        switch (msg[0] & 0xFF) {
            case 0x00 -> decoded(SessionDatagram.decode(msg, 0, msg.length), "SessionDatagram", d -> {
                datagrams.add(d);
                datagramNanos.add(System.nanoTime());
            });
            case 0x01, 0x02 -> mmpReports.incrementAndGet();
            case 0x10 -> decoded(TreeAnnounce.decode(msg, 0, msg.length), "TreeAnnounce", trees::add);
            case 0x20 -> decoded(FilterAnnounce.decode(msg, 0, msg.length), "FilterAnnounce", filters::add);
            case 0x30 -> decoded(LookupRequest.decode(msg, 0, msg.length), "LookupRequest", requests::add);
            case 0x31 -> decoded(LookupResponse.decode(msg, 0, msg.length), "LookupResponse", responses::add);
            case 0x50 -> problem("the node disconnected us, reason " + (msg.length > 1 ? msg[1] & 0xFF : -1));
            case 0x51 -> {
                if (msg.length != 1) {
                    problem("heartbeat with a body");
                }
                heartbeats.incrementAndGet();
                send(new byte[] {0x51});   // keeps the node's liveness timer fresh
            }
            default -> problem("unknown link message type " + (msg[0] & 0xFF));
        }
    }

    private <T> void decoded(final WireResult<T> r, final String what, final Consumer<T> sink) {
        if (r instanceof WireResult.Ok<T>(final T v)) {
            sink.accept(v);
        } else {
            problem(what + " from the node did not decode: " + r.errorOrNull());
        }
    }

    @Override
    public void close() throws IOException {
        ch.close();
        try {
            rx.join(5000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
