package io.impressiondedup.bench.e2e;

import io.impressiondedup.state.bloom.HeapBloomPages;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.SetParams;

/**
 * The Redis schemes ad-tech teams run for dedup today, on a local {@code redis-server}, fed the
 * same impressions (their 64-bit MD5 prefix + ad id) as the job: exact {@code SET key 1 NX EX
 * retention} and Redisson's {@code RBloomFilter}, both pipelined in batches from one client
 * thread. Memory is Redis's own {@code used_memory} growth; next to them, this project's filter
 * making the same decisions in-process (what the operator does per record, without Flink around it).
 */
final class RedisComparison {

    static final int BATCH = 1000;
    static final double FPP = 0.001;

    record Result(String scheme, long checks, long passed, long expectedUnique, double seconds, long memoryBytes) {
        double checksPerSecond() {
            return checks / seconds;
        }

        double bytesPerUnique() {
            return (double) memoryBytes / expectedUnique;
        }

        long falsePositives() {
            return expectedUnique - passed;
        }
    }

    private RedisComparison() {}

    static List<Result> run(String redisServer, DedupKeys keys, Path workDir) throws Exception {
        List<Result> results = new ArrayList<>();
        results.add(ourFilter(keys));
        int port = freePort();
        Process redis = new ProcessBuilder(redisServer, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", workDir.toString())
                .redirectErrorStream(true).redirectOutput(workDir.resolve("redis-server.log").toFile()).start();
        try (Jedis jedis = connect(port)) {
            results.add(setNx(jedis, keys));
            results.add(redissonBloom(jedis, port, keys));
        } finally {
            redis.destroy();
            if (!redis.waitFor(10, TimeUnit.SECONDS)) {
                redis.destroyForcibly();
            }
        }
        for (Result r : results) {
            System.out.printf(Locale.ROOT, "  %-34s %,12.0f checks/s  %8.2f B/unique  FP %d of %,d%n", r.scheme(), r.checksPerSecond(),
                    r.bytesPerUnique(), r.falsePositives(), r.expectedUnique());
        }
        return results;
    }

    /** This project's filter, planned for the workload's unique impressions at the same FPP, on the heap. */
    static Result ourFilter(DedupKeys keys) {
        FingerprintScheme scheme = FingerprintScheme.withKeyBits(FingerprintScheme.DEFAULT_KEY_BITS);
        ScalableBloomFilter filter = ScalableBloomFilter.create(scheme, keys.expectedUnique, FPP, DedupPlan.DEFAULT_PAGE_BYTES / 64);
        HeapBloomPages pages = new HeapBloomPages();
        long passed = 0;
        long start = System.nanoTime();
        for (int i = 0; i < keys.size(); i++) {
            passed += filter.putIfAbsent(keys.probeHash1(i, scheme), keys.probeHash2(i, scheme), pages) ? 1 : 0;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result("this project's filter (in-process)", keys.size(), passed, keys.expectedUnique, seconds, filter.bytes());
    }

    static Result setNx(Jedis jedis, DedupKeys keys) {
        jedis.flushAll();
        long before = usedMemory(jedis);
        SetParams params = SetParams.setParams().nx().ex(io.impressiondedup.state.time.TimeBuckets.DEFAULT_RETENTION.toSeconds());
        byte[] one = {'1'};
        long passed = 0;
        long start = System.nanoTime();
        for (int from = 0; from < keys.size(); from += BATCH) {
            Pipeline pipeline = jedis.pipelined();
            List<Response<String>> responses = new ArrayList<>(BATCH);
            for (int i = from; i < Math.min(keys.size(), from + BATCH); i++) {
                responses.add(pipeline.set(keys.binaryKey(i), one, params));
            }
            pipeline.sync();
            for (Response<String> response : responses) {
                passed += response.get() != null ? 1 : 0;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result("Redis SET NX EX (exact)", keys.size(), passed, keys.expectedUnique, seconds, usedMemory(jedis) - before);
    }

    static Result redissonBloom(Jedis jedis, int port, DedupKeys keys) {
        jedis.flushAll();
        long before = usedMemory(jedis);
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        RedissonClient redisson = Redisson.create(config);
        try {
            RBloomFilter<String> filter = redisson.getBloomFilter("impressions", StringCodec.INSTANCE);
            filter.tryInit(keys.expectedUnique, FPP);
            long passed = 0;
            long start = System.nanoTime();
            List<String> batch = new ArrayList<>(BATCH);
            for (int from = 0; from < keys.size(); from += BATCH) {
                batch.clear();
                for (int i = from; i < Math.min(keys.size(), from + BATCH); i++) {
                    batch.add(keys.textKey(i));
                }
                // Elements whose bits were not all set yet: the ones the filter lets pass.
                passed += filter.add(batch);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Result("Redisson RBloomFilter", keys.size(), passed, keys.expectedUnique, seconds, usedMemory(jedis) - before);
        } finally {
            redisson.shutdown();
        }
    }

    static long usedMemory(Jedis jedis) {
        for (String line : jedis.info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory");
    }

    private static Jedis connect(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                Jedis jedis = new Jedis("127.0.0.1", port);
                jedis.ping();
                return jedis;
            } catch (Exception notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("redis-server did not answer on port " + port + " within 30 s", notYet);
                }
                Thread.sleep(100);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
