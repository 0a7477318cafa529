package io.impressiondedup.testdata.write;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import io.impressiondedup.testdata.GeneratedRecord;

/** Writes generated records as {@link RecordEnvelope} lines. */
public final class JsonlFileDestination implements RecordDestination {

    private final Path file;
    private final OutputStream out;

    public JsonlFileDestination(Path file) throws IOException {
        this.file = file;
        this.out = UnsynchronizedBufferedOutputStream.toNewFile(file);
    }

    @Override
    public void write(GeneratedRecord record) throws IOException {
        RecordEnvelope.write(out, record.seq, record.key, null, record.value, record.valueIsJsonObject);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public String describe() {
        return file.toString();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
