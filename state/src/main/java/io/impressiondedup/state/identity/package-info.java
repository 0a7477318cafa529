/**
 * How an impression's identity is hashed: the one definition of which records are copies of each other,
 * shared by both state formats ({@link io.impressiondedup.state.bloom} and {@link
 * io.impressiondedup.state.fingerprints}).
 *
 * <ul>
 *   <li>{@link io.impressiondedup.state.identity.RequestIdDigester}: the MD5 digest of the request id, the one
 *       cryptographic hash a record costs; keyed (HMAC-MD5's inner hash) when the job has a secret.
 *   <li>{@link io.impressiondedup.state.identity.FingerprintScheme}: the digest truncated to {@code keyBits}, combined
 *       with the ad id hash into the two 64-bit probe hashes, and the shard taken from the digest's leading 32 bits.
 *   <li>{@link io.impressiondedup.state.identity.HashMixing}: the non-cryptographic mixing after the digest: the
 *       SplitMix64 finaliser, the public ad id hash (FNV-1a) and the keyed one (SipHash-2-4).
 *   <li>{@link io.impressiondedup.state.identity.FingerprintSecret}: the optional secret
 *       ({@code --fingerprint-secret-file}) that keys the digest and the ad id hash, and the check value state
 *       records of it; {@link io.impressiondedup.state.identity.FingerprintSecretFile}: the path and check value a
 *       job graph carries instead of the secret.
 * </ul>
 *
 * <p>What these functions compute decides which bits and fingerprints checkpointed state holds: their results never
 * change without a new state format version (docs/COMPATIBILITY.md).
 */
package io.impressiondedup.state.identity;
