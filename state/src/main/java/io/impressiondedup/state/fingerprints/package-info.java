/**
 * The fingerprint store: a second, opt-in format of a shard's dedup state, beside the Bloom filters of
 * {@link io.impressiondedup.state.bloom}, at about 15 bits per unique impression where the Bloom layout
 * takes 22-24 (docs/design/STATE-FOOTPRINT.md, option b2).
 *
 * <ul>
 *   <li>{@link io.impressiondedup.state.fingerprints.FingerprintStoreSizing}: the rules: page and value of a
 *       record, value range per band, the per-record FPP accounting and its derivation.
 *   <li>{@link io.impressiondedup.state.fingerprints.FingerprintPage}: one state entry, sections tagged with
 *       (bucket, band); {@link io.impressiondedup.state.fingerprints.EliasFanoSection}: one section's codec.
 *   <li>{@link io.impressiondedup.state.fingerprints.FingerprintPageSerializer}: the page's binary format.
 * </ul>
 *
 * The values stored are derived from the probe hashes of {@link io.impressiondedup.state.identity}
 * (the package that defines an impression's identity), so both formats share one identity.
 */
package io.impressiondedup.state.fingerprints;
