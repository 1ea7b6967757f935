package org.peerdex.simulations.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;
import org.peerdex.simulations.Simulation;

/** Writes a run's outputs: summary.json, timeseries.csv, peers.csv, queries.csv and report.html (inline SVG). */
public final class ReportWriter {
    private ReportWriter() {}

    public static void write(Path dir, Simulation sim, Map<String, Object> summary) throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Files.writeString(dir.resolve("summary.json"), json.writeValueAsString(summary));
        Files.writeString(dir.resolve("timeseries.csv"), timeseries(sim));
        Files.writeString(dir.resolve("peers.csv"), peers(sim));
        Files.writeString(dir.resolve("queries.csv"), queries(sim));
        Files.writeString(dir.resolve("report.html"), html(sim, summary), StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    public static String headline(Map<String, Object> s) {
        Map<String, Object> q = (Map<String, Object>) s.get("queries");
        Map<String, Object> p = (Map<String, Object>) s.get("postings");
        Map<String, Object> l = (Map<String, Object>) s.get("loadPerPeer");
        Map<String, Object> t = (Map<String, Object>) s.get("time");
        Map<String, Object> m = (Map<String, Object>) s.get("memory");
        return String.format(Locale.ROOT, "recall@10 %.3f | postings %s, zero live copies %s, histogram %s, no copy on a holder %s | load gini %.3f"
                + " | latency p50/p95/p99 %s/%s/%s ms | bytes/query %.0f | wall %.1f s, peak heap %.0f MiB",
                (Double) q.get("recallAt10"), p.get("total"), p.get("zeroLiveCopies"), p.get("liveCopiesHistogram"),
                p.get("noCopyOnAHolder"), (Double) l.get("gini"), q.get("latencyMillisP50"), q.get("latencyMillisP95"), q.get("latencyMillisP99"),
                (Double) q.get("bytesPerQuery"), (Double) t.get("wallSeconds"), (Double) m.get("peakHeapMiB"));
    }

    static String timeseries(Simulation sim) {
        StringBuilder b = new StringBuilder("sim_seconds,phase,up_peers,ring_min,ring_max");
        int buckets = sim.scenario().redundancy() + 2;
        for (int i = 0; i < buckets; i++) b.append(",copies_").append(i == buckets - 1 ? i + "plus" : i);
        b.append(",recall_at_10,queries,latency_p50_ms,bytes_per_query,store_messages,store_bytes,digest_messages,"
                + "digest_bytes,search_messages,membership_messages,repaired_postings,handed_off_postings,churn_events,"
                + "no_copy_on_a_holder\n");
        for (Simulation.Sample s : sim.series()) {
            b.append(String.format(Locale.ROOT, "%.1f,%s,%d,%d,%d", s.atMicros() / 1e6, s.phase(), s.upPeers(),
                    s.ringMin(), s.ringMax()));
            for (int h : s.histogram()) b.append(',').append(h);
            b.append(String.format(Locale.ROOT, ",%s,%d,%.1f,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", num(s.recall()),
                    s.queries(), s.latencyP50Millis(), num(s.bytesPerQuery()), s.storeMessages(), s.storeBytes(),
                    s.digestMessages(), s.digestBytes(), s.searchMessages(), s.membershipMessages(),
                    s.repairedPostings(), s.handedOff(), s.churnEvents(), s.noHolderCopy()));
        }
        return b.toString();
    }

    static String peers(Simulation sim) {
        StringBuilder b = new StringBuilder("index,peer_id,ring_position,up,postings,hostile,admitted\n");
        for (Simulation.PeerRow r : sim.peerRows()) {
            b.append(r.index()).append(',').append(r.id()).append(',').append(Long.toUnsignedString(r.position()))
                    .append(',').append(r.up()).append(',').append(r.postings()).append(',').append(r.hostile())
                    .append(',').append(r.admitted()).append('\n');
        }
        return b.toString();
    }

    static String queries(Simulation sim) {
        StringBuilder b = new StringBuilder("query,words,start_sim_ms,latency_ms,first_result_ms,recall_at_10,messages,bytes,complete,results,fake_results\n");
        for (Simulation.QueryResult q : sim.results()) {
            b.append(String.format(Locale.ROOT, "%d,%d,%.1f,%.1f,%.1f,%.3f,%d,%d,%s,%d,%d\n", q.index(), q.words(),
                    q.startMicros() / 1000.0, q.latencyMicros() / 1000.0, q.firstResultMicros() / 1000.0, q.recall(), q.messages(), q.bytes(),
                    q.complete(), q.results(), q.fakeResults()));
        }
        return b.toString();
    }

    private static String num(double d) {
        return Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%.4f", d);
    }

    // ---- HTML

    static String html(Simulation sim, Map<String, Object> summary) throws IOException {
        String pretty = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(summary);
        StringBuilder b = new StringBuilder();
        b.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>Peerdex simulation</title><style>")
                .append("body{font-family:sans-serif;margin:2em;max-width:1100px}h2{margin-top:1.6em}")
                .append("pre{background:#f4f4f4;padding:1em;overflow:auto;font-size:12px}svg{background:#fcfcfc;border:1px solid #ddd}")
                .append(".legend span{margin-right:1em}</style></head><body>");
        b.append("<h1>Peerdex simulation</h1><p>").append(esc(headline(summary))).append("</p>");
        b.append("<h2>Ring and load</h2><p>Peers at their ring positions; dot area by postings held (grey: down at the end;"
                + " red: hostile; refused peers are not drawn).</p>");
        b.append(ring(sim)).append(loadBars(sim));
        b.append("<h2>Replica counts over time</h2><p>Postings of the corpus by number of live copies.</p>");
        b.append(replicaChart(sim));
        b.append("<h2>Recall@10 over time</h2>").append(line(sim, "recall@10", s -> s.recall(), 0, 1.0));
        b.append("<h2>Live peers over time</h2>").append(line(sim, "live peers", s -> (double) s.upPeers(), 0, sim.size()));
        b.append("<h2>Query latency</h2><p>Distribution of simulated latency (ms).</p>")
                .append(histogram(sim.results().stream().mapToDouble(q -> q.latencyMicros() / 1000.0).toArray(), "ms"));
        b.append("<h2>Bytes per query</h2>")
                .append(histogram(sim.results().stream().mapToDouble(q -> q.bytes()).toArray(), "bytes"));
        b.append(line(sim, "bytes per query (mean per interval)", s -> s.bytesPerQuery(), 0, Double.NaN));
        b.append("<h2>Hostile peers</h2>").append(hostileTable(List.of(summary)));
        b.append("<h2>Summary</h2><pre>").append(esc(pretty)).append("</pre></body></html>");
        return b.toString();
    }

    /** The columns of the hostile table and hostile.csv: a header and a path into summary.json. */
    private static final String[][] HOSTILE_COLUMNS = {
        {"hostile share", "hostile.share"}, {"kind", "hostile.kind"}, {"hostile peers", "hostile.hostilePeers"},
        {"hostile admitted", "hostile.hostileAdmitted"}, {"honest admitted", "hostile.honestAdmitted"},
        {"max hostile per prefix", "hostile.maxHostileAdmittedPerPrefix"}, {"ring share", "hostile.ringShare"},
        {"key-space share", "hostile.keyspaceShare"}, {"targets", "hostile.targets"},
        {"targets with hostile primary", "hostile.targetsWithHostilePrimary"},
        {"recall@10", "queries.recallAt10"}, {"fake result share", "hostile.fakeResultShare"},
        {"queries with a fake", "hostile.queriesWithFakeShare"}, {"zero live copies", "postings.zeroLiveCopies"},
        {"no copy on a holder", "postings.noCopyOnAHolder"},
        {"incomplete queries", "queries.incompleteShare"}, {"latency p50 ms", "queries.latencyMillisP50"}};

    @SuppressWarnings("unchecked")
    private static Object at(Map<String, Object> summary, String path) {
        Object o = summary;
        for (String k : path.split("\\.")) o = o instanceof Map<?, ?> m ? ((Map<String, Object>) m).get(k) : null;
        return o;
    }

    private static String cell(Object o) {
        if (o instanceof Double d) return num(d);
        return o == null ? "" : String.valueOf(o);
    }

    /** One row per run: who got in, recall@10 and the share of fake results served. */
    public static String hostileTable(List<Map<String, Object>> summaries) {
        StringBuilder b = new StringBuilder("<table border=\"1\" cellpadding=\"4\" style=\"border-collapse:collapse;font-size:13px\"><tr>");
        for (String[] c : HOSTILE_COLUMNS) b.append("<th>").append(esc(c[0])).append("</th>");
        b.append("</tr>");
        for (Map<String, Object> s : summaries) {
            b.append("<tr>");
            for (String[] c : HOSTILE_COLUMNS) b.append("<td>").append(esc(cell(at(s, c[1])))).append("</td>");
            b.append("</tr>");
        }
        return b.append("</table>").toString();
    }

    /** hostile.csv: one line per run of a sweep over the hostile share. */
    public static String hostileCsv(List<Map<String, Object>> summaries) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < HOSTILE_COLUMNS.length; i++) {
            b.append(i == 0 ? "" : ",").append(HOSTILE_COLUMNS[i][0].replace(' ', '_').replace("@", "_at_"));
        }
        b.append('\n');
        for (Map<String, Object> s : summaries) {
            for (int i = 0; i < HOSTILE_COLUMNS.length; i++) b.append(i == 0 ? "" : ",").append(cell(at(s, HOSTILE_COLUMNS[i][1])));
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * Writes a sweep over the hostile share: hostile.csv and report.html (the table, and recall@10 and the fake
     * result share plotted against the hostile share); each run's own outputs are in its subdirectory.
     */
    public static void writeSweep(Path dir, List<Map<String, Object>> summaries, String command) throws IOException {
        Files.writeString(dir.resolve("hostile.csv"), hostileCsv(summaries));
        StringBuilder b = new StringBuilder("<!doctype html><html><head><meta charset=\"utf-8\"><title>Peerdex: hostile peers"
                + "</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}svg{background:#fcfcfc;"
                + "border:1px solid #ddd}</style></head><body><h1>Hostile peers</h1><p><code>")
                .append(esc(command)).append("</code></p>");
        double[] xs = summaries.stream().mapToDouble(s -> ((Number) at(s, "hostile.share")).doubleValue()).toArray();
        double[] recall = summaries.stream().mapToDouble(s -> ((Number) at(s, "queries.recallAt10")).doubleValue()).toArray();
        double[] fake = summaries.stream().mapToDouble(s -> ((Number) at(s, "hostile.fakeResultShare")).doubleValue()).toArray();
        b.append("<h2>Recall@10 and fake results served, by hostile share</h2>")
                .append(xy(xs, List.of(recall, fake), List.of("recall@10", "share of fake results in the top 10")));
        b.append(hostileTable(summaries)).append("<p>Each run's report: ");
        for (Map<String, Object> s : summaries) {
            String sub = sweepDir(((Number) at(s, "hostile.share")).doubleValue());
            b.append("<a href=\"").append(sub).append("/report.html\">").append(sub).append("</a> ");
        }
        Files.writeString(dir.resolve("report.html"), b.append("</p></body></html>").toString(), StandardCharsets.UTF_8);
    }

    /** The subdirectory of one run of a sweep. */
    public static String sweepDir(double share) {
        return String.format(Locale.ROOT, "hostile-%.3f", share);
    }

    private static String xy(double[] xs, List<double[]> lines, List<String> names) {
        int w = 700;
        int h = 260;
        int left = 60;
        int bottom = 30;
        double x1 = Math.max(1e-9, Arrays.stream(xs).max().orElse(1));
        StringBuilder b = new StringBuilder("<svg width=\"" + w + "\" height=\"" + h + "\">");
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left, h - bottom, w - 10, h - bottom));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left, left, h - bottom));
        b.append("<text x=\"2\" y=\"16\" font-size=\"10\">1.0</text>");
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"%d\" font-size=\"10\">0</text>", h - bottom));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"10\">hostile share 0 .. %s</text>", left, h - 8, fmt(x1)));
        for (int k = 0; k < lines.size(); k++) {
            StringBuilder pts = new StringBuilder();
            String col = COLORS[(k * 3) % COLORS.length];
            for (int i = 0; i < xs.length; i++) {
                double x = left + xs[i] / x1 * (w - left - 10);
                double y = (h - bottom) - Math.max(0, Math.min(1, lines.get(k)[i])) * (h - bottom - 10);
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s at %s: %s</title></circle>",
                        x, y, col, esc(names.get(k)), fmt(xs[i]), num(lines.get(k)[i])));
            }
            b.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(col).append("\" points=\"").append(pts).append("\"/>");
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s</text>",
                    left + 10 + 240 * k, 14, col, esc(names.get(k))));
        }
        return b.append("</svg>").toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String ring(Simulation sim) {
        int w = 420;
        double c = w / 2.0;
        double r = w / 2.0 - 30;
        long max = Math.max(1, sim.peerRows().stream().mapToLong(Simulation.PeerRow::postings).max().orElse(1));
        StringBuilder b = new StringBuilder("<svg width=\"" + w + "\" height=\"" + w + "\" viewBox=\"0 0 " + w + " " + w + "\">");
        b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#bbb\"/>", c, c, r));
        for (Simulation.PeerRow p : sim.peerRows()) {
            if (!p.admitted()) continue;
            double frac = (p.position() >>> 4) / (double) (1L << 60);
            double a = 2 * Math.PI * frac - Math.PI / 2;
            double rad = 1.5 + 7 * Math.sqrt(p.postings() / (double) max);
            b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" fill-opacity=\"0.7\">"
                    + "<title>peer %d %s: %d postings</title></circle>", c + r * Math.cos(a), c + r * Math.sin(a), rad,
                    !p.up() ? "#aaa" : p.hostile() ? "#d62728" : "#2a6fdb", p.index(), p.id(), p.postings()));
        }
        return b.append("</svg>").toString();
    }

    private static String loadBars(Simulation sim) {
        int w = 640;
        int h = 200;
        List<Simulation.PeerRow> rows = sim.peerRows();
        long max = Math.max(1, rows.stream().mapToLong(Simulation.PeerRow::postings).max().orElse(1));
        StringBuilder b = new StringBuilder("<svg width=\"" + w + "\" height=\"" + (h + 20) + "\">");
        double bw = (w - 40.0) / Math.max(1, rows.size());
        for (int i = 0; i < rows.size(); i++) {
            double bh = (h - 10) * rows.get(i).postings() / (double) max;
            b.append(String.format(Locale.ROOT, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>",
                    40 + i * bw, h - bh, Math.max(0.5, bw - 0.2), bh, rows.get(i).up() ? "#2a6fdb" : "#aaa"));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"12\" font-size=\"10\">%d</text><text x=\"40\" y=\"%d\" "
                + "font-size=\"10\">postings per peer, in ring order</text></svg>", max, h + 14));
        return b.toString();
    }

    private static final String[] COLORS = {"#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#1f77b4", "#9467bd", "#8c564b"};

    private static String replicaChart(Simulation sim) {
        List<Simulation.Sample> ss = sim.series();
        int buckets = sim.scenario().redundancy() + 2;
        List<double[]> lines = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int k = 0; k < buckets; k++) {
            double[] ys = new double[ss.size()];
            for (int i = 0; i < ss.size(); i++) ys[i] = ss.get(i).histogram()[k];
            lines.add(ys);
            names.add(k == buckets - 1 ? k + "+ copies" : k + " copies");
        }
        return chart(ss, lines, names, 0, Double.NaN, true);
    }

    private interface Metric {
        double of(Simulation.Sample s);
    }

    private static String line(Simulation sim, String name, Metric m, double min, double max) {
        List<Simulation.Sample> ss = sim.series();
        double[] ys = new double[ss.size()];
        for (int i = 0; i < ss.size(); i++) ys[i] = m.of(ss.get(i));
        return chart(ss, List.of(ys), List.of(name), min, max, false);
    }

    private static String chart(List<Simulation.Sample> ss, List<double[]> lines, List<String> names, double min,
                                double max, boolean log) {
        int w = 700;
        int h = 240;
        int left = 60;
        int bottom = 30;
        if (ss.isEmpty()) return "<p>(no samples)</p>";
        double t0 = ss.get(0).atMicros() / 60e6;
        double t1 = Math.max(t0 + 1e-9, ss.get(ss.size() - 1).atMicros() / 60e6);
        double hi = max;
        if (Double.isNaN(hi)) {
            hi = 0;
            for (double[] ys : lines) for (double y : ys) if (!Double.isNaN(y)) hi = Math.max(hi, y);
            if (hi == 0) hi = 1;
        }
        double lo = min;
        double top = hi;
        DoubleUnaryOperator scale = log ? y -> Math.log10(1 + y) : y -> y;
        double sLo = scale.applyAsDouble(lo);
        double sHi = scale.applyAsDouble(top);
        StringBuilder b = new StringBuilder("<svg width=\"" + w + "\" height=\"" + h + "\">");
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left, h - bottom, w - 10, h - bottom));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", left, left, h - bottom));
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"16\" font-size=\"10\">%s%s</text>", fmt(top), log ? " (log)" : ""));
        b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"%d\" font-size=\"10\">%s</text>", h - bottom, fmt(lo)));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"10\">%.0f min</text>", left, h - 8, t0));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"10\">%.0f min (simulated)</text>", w - 140, h - 8, t1));
        for (int k = 0; k < lines.size(); k++) {
            StringBuilder pts = new StringBuilder();
            double[] ys = lines.get(k);
            for (int i = 0; i < ys.length; i++) {
                if (Double.isNaN(ys[i])) continue;
                double x = left + (ss.get(i).atMicros() / 60e6 - t0) / (t1 - t0) * (w - left - 10);
                double y = (h - bottom) - (scale.applyAsDouble(ys[i]) - sLo) / Math.max(1e-12, sHi - sLo) * (h - bottom - 10);
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            String col = COLORS[k % COLORS.length];
            b.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(col).append("\" points=\"")
                    .append(pts).append("\"/>");
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s</text>",
                    left + 10 + 110 * k, 14, col, esc(names.get(k))));
        }
        return b.append("</svg>").toString();
    }

    private static String histogram(double[] xs, String unit) {
        if (xs.length == 0) return "<p>(no queries)</p>";
        double hi = Percentiles.of(xs, 99);
        if (hi <= 0) hi = 1;
        int bins = 40;
        int[] counts = new int[bins];
        for (double x : xs) counts[(int) Math.min(bins - 1, Math.max(0, x / hi * bins))]++;
        int max = Arrays.stream(counts).max().orElse(1);
        int w = 700;
        int h = 200;
        StringBuilder b = new StringBuilder("<svg width=\"" + w + "\" height=\"" + (h + 20) + "\">");
        double bw = (w - 60.0) / bins;
        for (int i = 0; i < bins; i++) {
            double bh = (h - 10) * counts[i] / (double) max;
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2a6fdb\">"
                    + "<title>%s-%s %s: %d</title></rect>", 50 + i * bw, h - bh, bw - 1, bh, fmt(i * hi / bins),
                    fmt((i + 1) * hi / bins), unit, counts[i]));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"50\" y=\"%d\" font-size=\"10\">0</text><text x=\"%d\" y=\"%d\" "
                + "font-size=\"10\">%s %s (p99; larger values in the last bar)</text><text x=\"2\" y=\"12\" font-size=\"10\">%d</text></svg>",
                h + 14, w - 260, h + 14, fmt(hi), unit, max));
        return b.toString();
    }

    private static String fmt(double d) {
        if (Math.abs(d) >= 1000) return String.format(Locale.ROOT, "%.0f", d);
        return String.format(Locale.ROOT, "%.3g", d);
    }
}
