package io.impressiondedup.job.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/** {@link DedupJobOptions#ALL} is built from the declarations: every declared option is in it, once. */
class DedupJobOptionsDeclarationTest {

    @Test
    void everyDeclaredOptionIsInAll() throws IllegalAccessException {
        List<String> missing = new ArrayList<>();
        for (Field field : DedupJobOptions.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers) && ConfigOption.class.isAssignableFrom(field.getType())
                    && !DedupJobOptions.ALL.contains((ConfigOption<?>) field.get(null))) {
                missing.add(field.getName());
            }
        }
        assertThat(missing).as("options declared in DedupJobOptions but missing from ALL (declare them through declare(...))")
                .isEmpty();
    }

    @Test
    void allHoldsEachOptionOnce() {
        assertThat(DedupJobOptions.ALL.stream().map(ConfigOption::key)).doesNotHaveDuplicates();
    }
}
