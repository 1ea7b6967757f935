package org.peerdex.actors.importer;

/** One kind of import: reads its source and hands documents to the job's context. Blocking. */
@FunctionalInterface
public interface ImportSource {
    /**
     * Imports everything it can; returns normally when done or when {@link ImportJob.Context#stopped()} turns
     * true. An exception fails the job with its message; what was imported before stays indexed.
     */
    void run(ImportJob.Context ctx) throws Exception;
}
