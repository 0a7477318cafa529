package io.impressiondedup.job.io.avro;

/**
 * Why a value is not a record of the schema, found while decoding it. Never leaves {@link AvroImpressionFields}:
 * it becomes the dead letter's error text. Without a stack trace, as it is control flow for bad input, not a bug.
 */
final class MalformedAvroException extends Exception {

    MalformedAvroException(String message) {
        super(message, null, false, false);
    }
}
