/**
 * Avro input: the fields the job needs (the key fields and the event time), read from the binary encoding of one
 * Avro record per Kafka value, with or without the 5-byte schema-registry wire prefix.
 *
 * <p>{@link io.impressiondedup.job.io.avro.AvroImpressionFields} is the entry point. The schema comes from a file
 * (Avro's own parser); the values are read by a decoder of this package that skips what is not needed by the
 * writer schema and never allocates more than the record's own size: Avro 1.11's {@code BinaryDecoder} allocates
 * a string's declared length before reading it, so a 64 KiB record declaring a 2 GiB string would cost 2 GiB of
 * heap, and its datum readers throw on bad input rather than say which field is wrong.
 */
package io.impressiondedup.job.io.avro;
