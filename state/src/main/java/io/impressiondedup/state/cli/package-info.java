/**
 * Command-line parsing for every entry point of the project ({@code plan}, {@code generate},
 * {@code verify}, the job): options are Flink {@code ConfigOption}s with descriptions and defaults,
 * given as {@code --name value}. It lives in the state module because that is the one module every
 * entry point depends on, and flink-core, its only dependency, already provides the typed options.
 */
package io.impressiondedup.state.cli;
