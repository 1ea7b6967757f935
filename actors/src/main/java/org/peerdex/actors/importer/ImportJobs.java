package org.peerdex.actors.importer;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.peerdex.storage.PeerStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The imports of one peer: starts {@link ImportJob}s on the import dispatcher, lists them, stops them, re-runs
 * scheduled ones (feeds re-read every so often), and keeps the history of finished imports per source in the
 * peer's settings so it survives a restart.
 */
public final class ImportJobs implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ImportJobs.class);
    static final String HISTORY_SETTING = "import.history";
    static final String SCHEDULES_SETTING = "import.schedules";
    private static final int MAX_HISTORY = 200;
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private final PeerStorage storage;
    private final Executor runner;
    private final int flushEvery;
    private final Runnable onFlush;
    private final Map<String, ImportJob> jobs = new ConcurrentHashMap<>();
    private final Map<String, Schedule> schedules = new ConcurrentHashMap<>();
    private final AtomicLong counter = new AtomicLong();
    private final List<ImportProgress> history = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "peerdex-import-timer");
        t.setDaemon(true);
        return t;
    });

    /**
     * A scheduled import as stored in the peer's settings, so that it runs on after a restart: its id, kind, source,
     * interval, the request it was made from (to build its source again) and when its next run is due (epoch ms).
     */
    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    public record StoredSchedule(String id, String kind, String source, String every, Map<String, Object> request,
                                 long nextRunAt) {
        public StoredSchedule {
            request = request == null ? Map.of() : Map.copyOf(request);
        }

        StoredSchedule nextAt(long at) {
            return new StoredSchedule(id, kind, source, every, request, at);
        }
    }

    /** The stored schedules by job id, in the order they were made. */
    private final Map<String, StoredSchedule> stored = new LinkedHashMap<>();

    /** A job that runs again {@code every} after each run ends; its progress is the latest run's. */
    private record Schedule(java.util.concurrent.atomic.AtomicReference<ScheduledFuture<?>> next, Duration every) {
        void cancel() {
            ScheduledFuture<?> f = next.get();
            if (f != null) f.cancel(false);
        }
    }

    public ImportJobs(PeerStorage storage, Executor runner, int flushEvery, Runnable onFlush) {
        this.storage = storage;
        this.runner = runner;
        this.flushEvery = flushEvery;
        this.onFlush = onFlush;
        storage.setting(HISTORY_SETTING).ifPresent(json -> {
            try {
                history.addAll(MAPPER.readValue(json, new TypeReference<List<ImportProgress>>() { }));
            } catch (Exception e) {
                log.warn("import history unreadable, starting a new one: {}", e.getMessage());
            }
        });
        counter.set(history.size());
        storage.setting(SCHEDULES_SETTING).ifPresent(json -> {
            try {
                for (StoredSchedule st : MAPPER.readValue(json, new TypeReference<List<StoredSchedule>>() { })) {
                    stored.put(st.id(), st);
                }
            } catch (Exception e) {
                log.warn("stored import schedules unreadable, none resumed: {}", e.getMessage());
            }
        });
    }

    /**
     * Runs the schedules stored by an earlier run of the peer again, each with the same id, its next run when it
     * was due (at once if that has passed). {@code rebuild} makes a schedule's source from its request; one it
     * cannot rebuild (a kind that no longer exists, a request this version refuses) is dropped with a warning.
     */
    public void resume(java.util.function.Function<StoredSchedule, ImportSource> rebuild) {
        List<StoredSchedule> all;
        synchronized (stored) {
            all = new ArrayList<>(stored.values());
        }
        for (StoredSchedule st : all) {
            if (jobs.containsKey(st.id())) continue;
            ImportSource body;
            ImportKind kind;
            Duration every;
            try {
                kind = ImportKind.parse(st.kind()).orElseThrow(() -> new IllegalArgumentException("no kind " + st.kind()));
                every = Duration.parse(st.every());
                body = rebuild.apply(st);
            } catch (RuntimeException e) {
                log.warn("scheduled import {} of {} not resumed: {}", st.id(), st.source(), e.getMessage());
                forget(st.id());
                continue;
            }
            ImportJob job = new ImportJob(st.id(), kind, st.source(), body, storage, flushEvery, onFlush);
            jobs.put(st.id(), job);
            Schedule schedule = new Schedule(new java.util.concurrent.atomic.AtomicReference<>(), every);
            schedules.put(st.id(), schedule);
            long delay = Math.max(0, st.nextRunAt() - System.currentTimeMillis());
            schedule.next().set(timer.schedule(() -> runner.execute(() -> runScheduled(job, schedule, kind,
                    st.source(), body)), delay, TimeUnit.MILLISECONDS));
            log.info("scheduled import {} ({} of {}, every {}) resumed, next run in {} ms", st.id(), st.kind(),
                    st.source(), every, delay);
        }
    }

    private void remember(StoredSchedule st) {
        synchronized (stored) {
            stored.put(st.id(), st);
            saveSchedules();
        }
    }

    private void forget(String id) {
        synchronized (stored) {
            if (stored.remove(id) != null) saveSchedules();
        }
    }

    private void saveSchedules() {
        try {
            storage.putSetting(SCHEDULES_SETTING, MAPPER.writeValueAsString(new ArrayList<>(stored.values())));
        } catch (Exception e) {
            log.warn("cannot save the import schedules: {}", e.getMessage());
        }
    }

    /** Starts an import now; returns its job at once. */
    public ImportJob start(ImportKind kind, String source, ImportSource body) {
        ImportJob job = newJob(kind, source, body);
        runner.execute(() -> runAndRecord(job));
        return job;
    }

    /** Starts an import that runs now and again every {@code every} until stopped; the job shows the latest run. */
    public ImportJob schedule(ImportKind kind, String source, ImportSource body, Duration every) {
        return schedule(kind, source, body, every, null);
    }

    /**
     * As {@link #schedule(ImportKind, String, ImportSource, Duration)}; with a {@code request} (the options the
     * source was made from) the schedule is stored and runs on after a restart (see {@link #resume}).
     */
    public ImportJob schedule(ImportKind kind, String source, ImportSource body, Duration every,
                              Map<String, Object> request) {
        ImportJob first = newJob(kind, source, body);
        if (request != null) {
            remember(new StoredSchedule(first.id(), kind.key(), source, every.toString(), request,
                    System.currentTimeMillis()));
        }
        Schedule schedule = new Schedule(new java.util.concurrent.atomic.AtomicReference<>(), every);
        schedules.put(first.id(), schedule);
        runner.execute(() -> runScheduled(first, schedule, kind, source, body));
        return first;
    }

    /** Runs one round on the import dispatcher; the timer only hands the next round back to it after the delay. */
    private void runScheduled(ImportJob job, Schedule schedule, ImportKind kind, String source, ImportSource body) {
        if (schedules.get(job.id()) != schedule) return;
        jobs.put(job.id(), job);
        runAndRecord(job);
        if (schedules.get(job.id()) != schedule) return;
        synchronized (stored) {
            // checked again under the lock: a stop that removed the schedule meanwhile is not undone here
            StoredSchedule st = stored.get(job.id());
            if (st != null && schedules.get(job.id()) == schedule) {
                remember(st.nextAt(System.currentTimeMillis() + schedule.every().toMillis()));
            }
        }
        try {
            schedule.next().set(timer.schedule(() -> runner.execute(() -> runScheduled(
                    new ImportJob(job.id(), kind, source, body, storage, flushEvery, onFlush), schedule, kind, source,
                    body)), schedule.every().toMillis(), TimeUnit.MILLISECONDS));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the peer is shutting down
        }
    }

    private ImportJob newJob(ImportKind kind, String source, ImportSource body) {
        String id = "imp-" + counter.incrementAndGet() + "-" + Long.toString(System.nanoTime() & 0xffff, 36);
        ImportJob job = new ImportJob(id, kind, source, body, storage, flushEvery, onFlush);
        jobs.put(id, job);
        return job;
    }

    private final java.util.concurrent.atomic.AtomicInteger active = new java.util.concurrent.atomic.AtomicInteger();

    private void runAndRecord(ImportJob job) {
        active.incrementAndGet();
        try {
            job.run();
        } finally {
            try {
                record(job.progress());
            } finally {
                active.decrementAndGet();
            }
        }
    }

    private synchronized void record(ImportProgress p) {
        history.add(p);
        while (history.size() > MAX_HISTORY) history.remove(0);
        try {
            storage.putSetting(HISTORY_SETTING, MAPPER.writeValueAsString(history));
        } catch (Exception e) {
            log.warn("cannot save the import history: {}", e.getMessage());
        }
    }

    /** Progress of a job of this run of the peer, or of one in the history. */
    public Optional<ImportProgress> get(String id) {
        ImportJob j = jobs.get(id);
        if (j != null) return Optional.of(withSchedule(j));
        synchronized (this) {
            for (int i = history.size() - 1; i >= 0; i--) if (history.get(i).id().equals(id)) return Optional.of(history.get(i));
        }
        return Optional.empty();
    }

    private ImportProgress withSchedule(ImportJob j) {
        ImportProgress p = j.progress();
        Schedule s = schedules.get(j.id());
        if (s == null) return p;
        Map<String, Object> d = new LinkedHashMap<>(p.details());
        d.put("every", s.every().toString());
        ScheduledFuture<?> next = s.next().get();
        if (next != null && !next.isDone()) d.put("nextRunInMs", Math.max(0, next.getDelay(TimeUnit.MILLISECONDS)));
        // a scheduled import stays running between its runs: it is a live subscription until stopped
        String state = p.state().equals("finished") ? "running" : p.state();
        return new ImportProgress(p.id(), p.kind(), p.source(), state, p.imported(), p.skipped(), p.errors(),
                p.docsPerSecond(), p.startedAt(), p.finishedAt(), p.error(), p.recentErrors(), d);
    }

    /** Current jobs first (newest first), then earlier runs from the history; optionally of one source only. */
    public List<ImportProgress> list(String sourceFilter) {
        List<ImportProgress> out = new ArrayList<>();
        jobs.values().stream().map(this::withSchedule).sorted(Comparator.comparingLong(ImportProgress::startedAt)
                .reversed()).forEach(out::add);
        synchronized (this) {
            for (int i = history.size() - 1; i >= 0; i--) {
                ImportProgress h = history.get(i);
                if (jobs.containsKey(h.id()) && out.stream().anyMatch(o -> o.id().equals(h.id())
                        && o.startedAt() == h.startedAt())) continue;
                out.add(h);
            }
        }
        if (sourceFilter == null || sourceFilter.isBlank()) return out;
        return out.stream().filter(p -> p.source().equals(sourceFilter)).toList();
    }

    /** Asks a job to stop (and cancels its schedule); empty if there is no such running job. */
    public Optional<ImportProgress> stop(String id) {
        ImportJob j = jobs.get(id);
        if (j == null) return Optional.empty();
        Schedule s = schedules.remove(id);
        if (s != null) s.cancel();
        forget(id);
        j.stop();
        return Optional.of(j.progress());
    }

    @Override
    public void close() {
        schedules.values().forEach(Schedule::cancel);
        schedules.clear();
        jobs.values().forEach(ImportJob::stopForShutdown);
        timer.shutdownNow();
        // let stopping jobs flush and record their history before the caller closes the storage
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (active.get() > 0 && System.nanoTime() < deadline) java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
    }
}
