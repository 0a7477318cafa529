/**
 * Avro input whose writer schemas a schema registry holds: each value's schema fetched by the id its wire prefix
 * carries, through the Confluent API or Apicurio's own ({@link io.impressiondedup.job.io.registry.SchemaRegistryApi}),
 * and kept as a reader of the job's fields ({@link io.impressiondedup.job.io.registry.WriterSchemas}, which owns the
 * rule: what an answer, a 404 and no answer mean for the records); the settings that travel to the TaskManagers
 * ({@link io.impressiondedup.job.io.registry.SchemaRegistrySettings}) and the probe the submission checks ask with.
 * Below the options ({@code job.config}) and beside the decoder ({@code job.io.avro}); it never reads options itself.
 */
package io.impressiondedup.job.io.registry;
