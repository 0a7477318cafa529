package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

class NativeLz4Test {

    /**
     * The situation of a job on a Flink cluster: lz4-java, slf4j and the job's classes loaded by a
     * class loader of their own (as Flink's user-code class loader loads them from the job's jar), not
     * by the system class loader. There, lz4-java's fastestInstance() (what Kafka's clients call) is the
     * Java codec until NativeLz4.load(), and the native one after it.
     */
    @Test
    void inAUserCodeClassLoaderKafkaGetsTheJavaCodecUntilLoadAndTheNativeOneAfter() throws Exception {
        URL[] jobJar = {location(NativeLz4.class), location(LZ4Factory.class), location(Logger.class)};
        try (URLClassLoader userCode = new URLClassLoader("user-code", jobJar, ClassLoader.getPlatformClassLoader())) {
            Class<?> nativeLz4 = userCode.loadClass(NativeLz4.class.getName());
            Class<?> factory = userCode.loadClass(LZ4Factory.class.getName());
            assertThat(factory.getClassLoader()).isSameAs(userCode);
            Method fastest = factory.getMethod("fastestInstance");

            assertThat(fastest.invoke(null).toString()).doesNotContain("JNI");
            assertThat(nativeLz4.getMethod("isNative").invoke(null)).isEqualTo(false);

            assertThat(nativeLz4.getMethod("load").invoke(null)).isEqualTo(true);

            assertThat(fastest.invoke(null).toString()).contains("JNI");
            assertThat(nativeLz4.getMethod("isNative").invoke(null)).isEqualTo(true);
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
