package io.impressiondedup.tools;

import io.impressiondedup.state.fingerprint.FingerprintSecretFile;
import io.impressiondedup.state.fingerprint.RequestIdDigester;
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

    HistoryFileRows(int shards, HistoryHorizon horizon, FingerprintSecretFile secret, Instant minEventTime) {
        super(shards, horizon);
        this.secret = secret;
        this.minEventTime = minEventTime;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        super.open(openContext);
        parser = new HistoryRowParser(minEventTime);
        digester = new RequestIdDigester(secret == null ? null : secret.read());
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
        emit(row.eventTime(), digester.high(), digester.low(), row.adId(), out);
    }
}
