package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.JobIdentity;
import org.junit.jupiter.api.Test;

/** The default consumer group and transactional-id prefix, derived from the job's topics. */
class JobIdentityTest {

    static DedupJobConfig config(String input, String output, String... extra) {
        String[] base = {"--bootstrap-servers", "localhost:9092", "--input-topic", input, "--output-topic", output, "--dlq-topic", "dlq",
            "--capacity", "1000"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return DedupJobConfig.parse(args);
    }

    @Test
    void twoJobsDifferingOnlyInTheirTopicsGetDifferentGroupsAndPrefixes() {
        DedupJobConfig first = config("impressions-eu", "deduplicated-eu");
        DedupJobConfig second = config("impressions-us", "deduplicated-us");
        DedupJobConfig sameInputOtherOutput = config("impressions-eu", "deduplicated-eu-v2");

        assertThat(first.groupId()).isNotEqualTo(second.groupId()).isNotEqualTo(sameInputOtherOutput.groupId());
        assertThat(first.transactionalIdPrefix()).isNotEqualTo(second.transactionalIdPrefix())
                .isNotEqualTo(sameInputOtherOutput.transactionalIdPrefix());
        assertThat(first.groupId()).startsWith("impression-dedup-impressions-eu-deduplicated-eu-");
    }

    @Test
    void theSameConfigurationTwiceGetsTheSameIdentity() {
        DedupJobConfig first = config("impressions", "deduplicated");
        DedupJobConfig again = config("impressions", "deduplicated", "--dlq-topic", "other-dlq", "--duplicates-topic", "audit");

        assertThat(again.groupId()).isEqualTo(first.groupId());
        assertThat(again.transactionalIdPrefix()).isEqualTo(first.transactionalIdPrefix()).isEqualTo(first.groupId());
    }

    /**
     * Pinned: a change of the derivation gives every deployed job that runs on the default a new
     * group (a start without state would read from the earliest offset) and a new prefix.
     */
    @Test
    void theDerivationNeverChangesBetweenBuilds() {
        assertThat(JobIdentity.derive("impressions", "impressions-deduplicated"))
                .isEqualTo("impression-dedup-impressions-impressions-deduplicated-834a12da");
    }

    @Test
    void hyphensInTopicNamesCannotMakeTwoJobsOne() {
        assertThat(JobIdentity.derive("a-b", "c")).isNotEqualTo(JobIdentity.derive("a", "b-c"));
    }

    @Test
    void longTopicNamesGiveABoundedIdentityThatStillTellsThemApart() {
        String longInput = "i".repeat(249);
        String first = JobIdentity.derive(longInput, "o".repeat(248) + "1");
        String second = JobIdentity.derive(longInput, "o".repeat(248) + "2");

        assertThat(first).hasSizeLessThanOrEqualTo(107).isNotEqualTo(second);
    }

    @Test
    void explicitValuesWinOverTheDerivedOnes() {
        DedupJobConfig config = config("impressions", "deduplicated", "--group-id", "my-group", "--transactional-id-prefix", "my-tx");

        assertThat(config.groupId()).isEqualTo("my-group");
        assertThat(config.transactionalIdPrefix()).isEqualTo("my-tx");
        assertThat(config.describe()).contains("group-id = my-group\n").contains("transactional-id-prefix = my-tx\n");
    }

    @Test
    void theStartupLogAndTheHelpShowTheDerivedIdentity() {
        DedupJobConfig config = config("impressions", "deduplicated");

        assertThat(config.describe()).contains("group-id = " + config.groupId() + " (default, from --input-topic and --output-topic)")
                .contains("transactional-id-prefix = " + config.groupId() + " (default");
        assertThat(DedupJob.help().replaceAll("\\s+", " ")).contains("impression-dedup-<input-topic>-<output-topic>-<first 8 hex digits of SHA-256");
    }
}
