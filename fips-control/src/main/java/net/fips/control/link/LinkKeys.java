package net.fips.control.link;

import java.util.Objects;
import java.util.Random;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.noise.EphemeralSource;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Our side of every Noise IK link handshake (crypto-link §5.8): the static identity, the startup epoch sent in
 * each handshake, and the ephemerals drawn from the conductor's injected {@link Random}. Hands out initiator and
 * responder states so that the secret stays here. Immutable apart from the generator.
 */
final class LinkKeys {
    private final NodeIdentity identity;
    private final NodeAddr addr;
    private final byte[] secret;
    private final byte[] epoch;
    private final EphemeralSource ephemerals;

    LinkKeys(final NodeIdentity identity, final byte[] startupEpoch, final Random random) {
        if (startupEpoch == null || startupEpoch.length != HandshakeState.EPOCH_BYTES) {
            throw new IllegalArgumentException("startup epoch must be 8 bytes");
        }
        this.identity = Objects.requireNonNull(identity, "identity");
        this.addr = identity.nodeAddr();
        this.secret = identity.secretKey();
        this.epoch = startupEpoch.clone();
        Objects.requireNonNull(random, "random");
        this.ephemerals = () -> Secp256k1.randomSecret(random);
    }

    /** @return our node address */
    NodeAddr addr() {
        return addr;
    }

    /** @return our npub (log lines) */
    String npub() {
        return identity.npub();
    }

    /** @return our startup epoch (a copy) */
    byte[] epoch() {
        return epoch.clone();
    }

    /** @return a fresh IK initiator toward the peer whose compressed static key is {@code remoteStatic} */
    HandshakeState initiator(final byte[] remoteStatic) throws NoiseException {
        return HandshakeState.initiator(HandshakeState.Pattern.IK, secret, remoteStatic, epoch, ephemerals);
    }

    /** @return a fresh IK responder */
    HandshakeState responder() throws NoiseException {
        return HandshakeState.responder(HandshakeState.Pattern.IK, secret, epoch, ephemerals);
    }
}
