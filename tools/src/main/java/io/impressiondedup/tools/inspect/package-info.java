/**
 * {@code dedup-tools inspect}: what a savepoint holds per bucket (fill, estimated FPP, bytes), and the
 * decision it would give for queried impressions.
 */
package io.impressiondedup.tools.inspect;
