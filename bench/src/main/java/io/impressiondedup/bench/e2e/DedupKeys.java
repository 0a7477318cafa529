package io.impressiondedup.bench.e2e;

import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The dedup identities of a workload's impressions in stream order (its malformed, late and
 * far-future records left out): the 64-bit MD5 prefix of the request id with the ad id, the same
 * identity the job uses, for the schemes that run outside Flink.
 */
final class DedupKeys {

    final List<String> adIds = new ArrayList<>();
    final long[] digestHigh;
    final long[] digestLow;
    final long expectedUnique;

    private DedupKeys(long[] high, long[] low, long expectedUnique) {
        this.digestHigh = high;
        this.digestLow = low;
        this.expectedUnique = expectedUnique;
    }

    static DedupKeys of(long records, long seed) {
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(records).seed(seed).span(Workload.SPAN).build());
        RequestIdDigester digester = new RequestIdDigester();
        long[] high = new long[(int) records];
        long[] low = new long[(int) records];
        List<String> ads = new ArrayList<>();
        int n = 0;
        long unique = 0;
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            if (record.recordClass.isDeadLetter()) {
                continue;
            }
            digester.digest(record.requestId);
            high[n] = digester.high();
            low[n] = digester.low();
            ads.add(record.adId);
            n++;
            unique += record.recordClass.opensGroup() ? 1 : 0;
        }
        DedupKeys keys = new DedupKeys(java.util.Arrays.copyOf(high, n), java.util.Arrays.copyOf(low, n), unique);
        keys.adIds.addAll(ads);
        return keys;
    }

    int size() {
        return digestHigh.length;
    }

    /** The Redis key: 8 bytes of MD5 prefix, then the ad id. */
    byte[] binaryKey(int i) {
        byte[] ad = adIds.get(i).getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + ad.length).putLong(digestHigh[i]).put(ad).array();
    }

    /** The same identity as text, for clients that take strings (Redisson's filter codec). */
    String textKey(int i) {
        return Long.toHexString(digestHigh[i]) + ':' + adIds.get(i);
    }

    long probeHash1(int i, FingerprintScheme scheme) {
        return scheme.probeHash1(digestHigh[i], digestLow[i], HashMixing.adIdHash(adIds.get(i)));
    }

    long probeHash2(int i, FingerprintScheme scheme) {
        return scheme.probeHash2(digestHigh[i], digestLow[i], HashMixing.adIdHash(adIds.get(i)));
    }
}
