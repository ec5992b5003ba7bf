/**
 * The FSP end-to-end session control plane: the Noise XK session handshake per remote node address
 * ({@code SessionHandshakes}), its resend schedule and timeouts, the pending-packet queue ({@code PendingPackets}),
 * idle expiry, session rekey ({@code SessionRekey}) and the reaction to transit error signals. Owned by
 * {@link net.fips.control.session.Sessions}; per-packet encryption of established sessions belongs to the data
 * plane, which receives the derived keys through {@link net.fips.control.session.SessionListener}. "Session" in
 * this package is always an FSP session; the link layer's Noise IK keys are key epochs of a link.
 */
package net.fips.control.session;
