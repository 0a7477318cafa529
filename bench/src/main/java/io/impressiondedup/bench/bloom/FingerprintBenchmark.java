package io.impressiondedup.bench.bloom;

import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.HashMixing;
import java.nio.charset.StandardCharsets;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-record hashing cost: MD5 of a 36-character request id with the reused digester, the ad id
 * hash, and both probe hashes; next to a fresh {@code MessageDigest.getInstance} per record, the
 * pattern the digester exists to avoid.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {"-Xmx1g"})
public class FingerprintBenchmark {

    private final FingerprintScheme scheme = FingerprintScheme.withKeyBits(64);
    private final RequestIdDigester digester = new RequestIdDigester();
    private final FingerprintSecret secret = FingerprintSecret.of("fingerprint-benchmark-secret-0123456789".getBytes(StandardCharsets.US_ASCII));
    private final RequestIdDigester keyedDigester = new RequestIdDigester(secret);
    private final FingerprintScheme keyedScheme = FingerprintScheme.withKeyBits(64).withAdIdsKeyed(true);
    private String[] requestIds;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        requestIds = new Fingerprints(1 << 16, 3).requestIds;
    }

    private String nextRequestId() {
        String id = requestIds[next];
        next = (next + 1) & (requestIds.length - 1);
        return id;
    }

    @Benchmark
    public long md5Fingerprint() {
        digester.digest(nextRequestId());
        long ad = HashMixing.adIdHash("ad-1234");
        return scheme.probeHash1(digester.high(), digester.low(), ad) ^ scheme.probeHash2(digester.high(), digester.low(), ad);
    }

    /** The same with a fingerprint secret: the keyed MD5 and the ad id's SipHash-2-4 under the secret's key. */
    @Benchmark
    public long keyedFingerprint() {
        keyedDigester.digest(nextRequestId());
        long ad = secret.keyedAdIdHash("ad-1234");
        return keyedScheme.probeHash1(keyedDigester.high(), keyedDigester.low(), ad)
                ^ keyedScheme.probeHash2(keyedDigester.high(), keyedDigester.low(), ad);
    }

    /** The ad id's hash alone, unkeyed (FNV-1a) and keyed (SipHash-2-4), of a 36-character id. */
    @Benchmark
    public long adIdHashUnkeyed() {
        return HashMixing.adIdHash(nextRequestId());
    }

    @Benchmark
    public long adIdHashKeyed() {
        return secret.keyedAdIdHash(nextRequestId());
    }

    @Benchmark
    public byte[] md5GetInstancePerRecord() throws Exception {
        return java.security.MessageDigest.getInstance("MD5")
                .digest(nextRequestId().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
