/**
 * The generated stream: {@code ImpressionGenerator} and its parts, all drawing from one random source in a
 * fixed order, so that a seed reproduces the stream byte for byte.
 */
package io.impressiondedup.testdata.generate;
