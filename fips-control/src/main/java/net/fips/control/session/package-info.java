/**
 * The FSP end-to-end session control plane: the Noise XK session handshake per remote node address, its resend
 * schedule and timeouts, the pending-packet queue, idle expiry and the reaction to transit error signals. Owned by
 * {@link net.fips.control.session.Sessions}; per-packet encryption of established sessions belongs to the data
 * plane, which receives the derived keys through {@link net.fips.control.session.SessionListener}.
 */
package net.fips.control.session;
