package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.FingerprintSecretFile;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.util.Collector;

/** The rows of a history file ({@link HistoryRowParser}), request ids digested with the job's secret if it has one. */
final class HistoryFileRows extends HistoryToImpressions<NumberedLine> {

    private static final long serialVersionUID = 1L;

    /** Read where the function opens: the job graph holds the file's path, never the secret. */
    private final FingerprintSecretFile secret;
    private final Instant minEventTime;
    private transient HistoryRowParser parser;
    private transient RequestIdDigester digester;
    /** The secret read from {@link #secret}; null without one. */
    private transient FingerprintSecret readSecret;

    HistoryFileRows(int shards, HistoryHorizon horizon, FingerprintSecretFile secret, Instant minEventTime) {
        super(shards, horizon);
        this.secret = secret;
        this.minEventTime = minEventTime;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        super.open(openContext);
        parser = new HistoryRowParser(minEventTime);
        readSecret = secret == null ? null : secret.read();
        digester = new RequestIdDigester(readSecret);
    }

    @Override
    public void flatMap(NumberedLine line, Collector<HistoryImpression> out) {
        if (line.text == null) {
            bad("line " + line.number + ": " + line.error);
            return;
        }
        HistoryRowParser.Row row = parser.parse(line.number, line.text);
        if (row.header()) {
            return;
        }
        if (row.error() != null) {
            bad(row.error());
            return;
        }
        digester.digest(row.requestId());
        long keyedAdIdHash = readSecret == null ? 0L : readSecret.keyedAdIdHash(row.adId());
        emit(row.eventTime(), digester.high(), digester.low(), row.adId(), keyedAdIdHash, out);
    }
}
