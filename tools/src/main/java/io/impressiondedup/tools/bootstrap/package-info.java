/**
 * {@code dedup-tools bootstrap}: a savepoint built from history (files or the output topic), so a first
 * deployment starts knowing what was already counted.
 */
package io.impressiondedup.tools.bootstrap;
